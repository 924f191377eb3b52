#include "CLarderSwift.h"

_Thread_local void *larder_swift_construction;
