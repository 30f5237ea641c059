"""Privacy measures over stored runs: re-identification risk (TRIR), inference attacks, imports of other systems."""
