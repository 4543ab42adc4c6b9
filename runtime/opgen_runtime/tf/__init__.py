"""TensorFlow: which backend a call runs on, the bridge to TF's own execution, dispatch,
op libraries and traceback filtering. TensorFlow is imported only when used.
"""
