// Output pipeline
