#error Jürgen
