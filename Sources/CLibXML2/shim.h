// Debian's libxml2 is built with ICU, so its encoding header pulls in the system's
// <unicode/*.h>, whose types clash with the copy Foundation carries (_FoundationICU:
// "'UErrorCode' has different definitions in different modules", depending on build order).
// Flipbox never touches the ICU fields (the tail of xmlCharEncodingHandler), so leave them out.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/parser.h>

/// `xmlFree` is a global function pointer (a macro in some builds); this calls it.
static inline void cxml_free(void *pointer) { xmlFree(pointer); }

static void cxml_ignore_generic_error(void *context, const char *message, ...) { (void)context; (void)message; }

/// Stops libxml2 printing to stderr on this thread (encoding and I/O errors go through its
/// generic handler, not the reader's structured one, which reports what matters with a line).
static inline void cxml_silence_generic_errors(void) { xmlSetGenericErrorFunc(NULL, cxml_ignore_generic_error); }
