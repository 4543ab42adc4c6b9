"""Op construction: the OpDef registry, what a wrapper's call adds to the graph
(`op_def_library`, its fast path) and eager execution (`execute`).
"""
