"""TensorFlow's text forms: attr values and OpDef summaries (`attr_text`), the protobuf
text format (`proto_text`) and where each field of it is written (`proto_positions`).
"""
