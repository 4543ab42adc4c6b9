#define UNARY() Input("x: float).Output("y: float")
