// A C target needs a source file; everything CNetOpsZlib offers is in include/CNetOpsZlib.h.
#include "CNetOpsZlib.h"
