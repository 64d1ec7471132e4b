#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt): runs the fuzzing loop with `callback`, taking libFuzzer's
/// flags from argc/argv. The fuzz targets call it from their own entry point, because SwiftPM
/// renames an executable's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
