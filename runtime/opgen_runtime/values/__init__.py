"""Values: dtypes, `TensorShape`, attr values, conversion of Python values to tensors,
constants, and recognising TensorFlow's own objects (without importing TensorFlow).
"""
