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

/* Set (non-NULL) while this thread runs work on behalf of a queue or an actor a
 * Realm instance is confined to: the token of that confinement. */
extern _Thread_local const void *larder_swift_confinement_override;

/* The calling thread itself: the address of one of its thread-locals, which
 * differs between live threads and costs one add to the thread pointer, where
 * pthread_self() is a call. */
static inline const void *larder_swift_os_thread_token(void) { return &larder_swift_accessor_class; }

/* Who the caller runs as: the confinement override when one is set, else the
 * thread. Realm instances compare it to their own token to stay confined. */
static inline const void *larder_swift_thread_token(void) {
    const void *o = larder_swift_confinement_override; return o ? o : &larder_swift_accessor_class; }

/* The override, NULL when none is set. */
static inline const void *larder_swift_confinement_override_get(void) { return larder_swift_confinement_override; }

/* Sets the override and returns the previous one, to be put back. */
static inline const void *larder_swift_confinement_swap(const void *token) {
    const void *previous = larder_swift_confinement_override;
    larder_swift_confinement_override = token;
    return previous;
}

/* Whether the calling code runs on the serial executor given as its two words
 * (an UnownedSerialExecutor). The Swift runtime's own test, behind assumeIsolated,
 * with flags 0, which answer rather than crash (the Swift 6 default crashes with
 * the runtime's message): a Realm used off its actor traps with Realm's message.
 * Swift cannot declare it (the standard library already does, internally). */
extern _Bool swift_task_isCurrentExecutorWithFlags(const void *identity, uintptr_t implementation, uint64_t flags)
    __attribute__((swiftcall));
static inline int larder_swift_is_current_executor(const void *identity, uintptr_t implementation) {
    return swift_task_isCurrentExecutorWithFlags(identity, implementation, 0 /* answer, never crash */);
}

/* Retains a Swift object unless its deinit has begun (its strong count reached zero),
 * atomically: the Swift runtime's own test behind weak references, which reads nil from
 * the moment a deinit starts. The object's memory must still be allocated. Returns the
 * object, retained, or NULL. */
extern void *swift_tryRetain(void *object);
static inline int larder_swift_try_retain(void *object) { return swift_tryRetain(object) != 0; }

/* Numbers stored in place. Swift assembles an imported union byte by byte
 * (about 90 instructions a value); C writes the tag and the number. */
static inline void larder_swift_set_int(lar_value *out, int64_t v) { out->type = LAR_TYPE_INT; out->as.integer = v; }
static inline void larder_swift_set_double(lar_value *out, double v) { out->type = LAR_TYPE_DOUBLE; out->as.float64 = v; }
static inline void larder_swift_set_float(lar_value *out, float v) { out->type = LAR_TYPE_FLOAT; out->as.float32 = v; }
static inline void larder_swift_set_bool(lar_value *out, int v) { out->type = LAR_TYPE_BOOL; out->as.boolean = v; }

#endif
