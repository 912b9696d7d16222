#ifndef MOLT_CLIBXML2_SHIM_H
#define MOLT_CLIBXML2_SHIM_H

// libxml2 here is built with ICU. Its ICU headers clash with the ICU that Foundation brings into
// the same Swift module, so read the build configuration first and switch the ICU part off
// before any other libxml2 header is seen. Molt uses none of libxml2's ICU features.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlstring.h>

// libxml2's generic error callback is variadic, which Swift cannot implement. Molt collects
// errors through the structured handler instead and sends generic messages here, to nowhere,
// so that libxml2 never prints to the user's terminal.
static inline void molt_xml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline void molt_xml_silence_generic_errors(void) {
    xmlSetGenericErrorFunc(NULL, molt_xml_ignore_generic_error);
}

#endif
