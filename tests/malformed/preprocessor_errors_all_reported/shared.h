// An error in a header two files include is reported once.
#define BROKEN(x, x) x
