#include "CLarderSwift.h"

_Thread_local const void *larder_swift_accessor_class;
_Thread_local const void *larder_swift_confinement_override;
