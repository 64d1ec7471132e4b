#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/parser.h>

/// `xmlFree` is a global function pointer (a macro in some builds); this calls it.
static inline void cxml_free(void *pointer) { xmlFree(pointer); }
