"""Shape inference: TF's InferenceContext, constant evaluation for shape functions and
the ports of TF's shape functions (`fns`).
"""
