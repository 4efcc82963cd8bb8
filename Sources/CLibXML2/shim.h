// Debian's libxml2 is built with ICU; its encoding header would pull ICU's
// types into this module and clash with Foundation's own copy. The reader API
// never touches them, so ICU is switched off for this module only.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
