// The declaration in include/CFuzzer.h is all this module provides; libFuzzer defines it.
