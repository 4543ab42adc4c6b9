"""The graph core: `Graph`, `Operation`, `Tensor`, name, control and device scopes.
"""
