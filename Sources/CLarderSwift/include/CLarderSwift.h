/* Plumbing for the Swift overlay, not part of Larder's C API. */
#ifndef CLARDER_SWIFT_H
#define CLARDER_SWIFT_H

/* The core of the object whose @Persisted properties this thread is initializing.
 * A C thread-local: Swift has none, and pthread keys cost a call per property. */
extern _Thread_local void *larder_swift_construction;

static inline void *larder_swift_construction_get(void) { return larder_swift_construction; }
static inline void larder_swift_construction_set(void *core) { larder_swift_construction = core; }

#endif
