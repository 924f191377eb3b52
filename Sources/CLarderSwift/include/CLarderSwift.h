/* Plumbing for the Swift overlay, not part of Larder's C API. */
#ifndef CLARDER_SWIFT_H
#define CLARDER_SWIFT_H

#include "larder.h"

/* The class of the managed accessor this thread is building (NULL when none):
 * its @Persisted properties must not evaluate their initial values. A C
 * thread-local: Swift has none, and pthread keys cost a call per property. */
extern _Thread_local const void *larder_swift_accessor_class;

static inline const void *larder_swift_accessor_class_get(void) { return larder_swift_accessor_class; }
static inline void larder_swift_accessor_class_set(const void *cls) { larder_swift_accessor_class = cls; }

/* A token for the calling thread: the address of one of its thread-locals, which
 * differs between live threads and costs one add to the thread pointer, where
 * pthread_self() is a call. Realm instances compare it to stay on their thread. */
extern _Thread_local const void *larder_swift_confinement_override;
static inline const void *larder_swift_thread_token(void) {
    const void *o = larder_swift_confinement_override; return o ? o : &larder_swift_accessor_class; }

/* While set, the token this thread stands for instead of its own: a queue's or an
 * actor's, for the block that runs confined to it (Swift: withConfinement). */
static inline const void *larder_swift_confinement_override_get(void) { return larder_swift_confinement_override; }
static inline void larder_swift_confinement_override_set(const void *token) { larder_swift_confinement_override = token; }

/* Numbers stored in place. Swift assembles an imported union byte by byte
 * (about 90 instructions a value); C writes the tag and the number. */
static inline void larder_swift_set_int(lar_value *out, int64_t v) { out->type = LAR_TYPE_INT; out->as.integer = v; }
static inline void larder_swift_set_double(lar_value *out, double v) { out->type = LAR_TYPE_DOUBLE; out->as.float64 = v; }
static inline void larder_swift_set_float(lar_value *out, float v) { out->type = LAR_TYPE_FLOAT; out->as.float32 = v; }
static inline void larder_swift_set_bool(lar_value *out, int v) { out->type = LAR_TYPE_BOOL; out->as.boolean = v; }

#endif
