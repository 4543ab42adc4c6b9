// A dependency's header: defines nothing the ops use.
