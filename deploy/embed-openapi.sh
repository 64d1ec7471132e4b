#!/usr/bin/env bash
# Writes docs/openapi.yaml into Sources/Control/OpenAPIDocument+Text.swift, so the binary serves
# it at /api/v1/openapi.json without files beside it. `make openapi` runs it; a test
# (OpenAPIDocumentTests) fails when the two differ.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Sources/Control/OpenAPIDocument+Text.swift
{
  echo '// Generated from docs/openapi.yaml by deploy/embed-openapi.sh (make openapi). Do not edit.'
  echo
  echo 'extension OpenAPIDocument {'
  echo '    static let yaml = ##"""'
  sed 's/^/        /; s/^        $//' docs/openapi.yaml
  echo '        """##'
  echo '}'
} > "$out.tmp"
mv "$out.tmp" "$out"
