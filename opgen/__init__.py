"""opgen: TensorFlow-style REGISTER_OP declarations -> Python op-wrapper modules."""

__version__ = "0.1.0"
