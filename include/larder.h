/** @file larder.h
 *  @brief Larder: an embedded object database over LMDB.
 *
 *  Larder stores objects of user-defined classes in one database file (plus
 *  its "-lock" file). This header is the whole public C interface; the Swift
 *  module `Larder` is built on it, and any language with a C FFI can use it to
 *  open the same files.
 *
 *  @section lifecycle Lifecycle
 *  1. lar_env_open() opens (or creates) a database file.
 *  2. lar_schema_apply() declares the classes the program uses; a file opened
 *     without it exposes the classes already stored in it.
 *  3. lar_txn_begin() starts a read snapshot or the single write transaction.
 *  4. lar_obj_create(), lar_obj_get(), lar_obj_set(), lar_obj_find(),
 *     lar_iter_open() ... work inside a transaction.
 *  5. lar_txn_commit() or lar_txn_abort() ends it; lar_txn_free() releases
 *     the handle.
 *  6. lar_env_close() closes the database.
 *
 *  @section errors Errors
 *  Every function that can fail returns #LAR_OK (0) or a negative LAR_E* code
 *  and records the code and a message in this thread's last error, read with
 *  lar_error_last(). A successful call does not clear the last error. No
 *  function aborts the process on bad input.
 *
 *  @section ownership Ownership
 *  A handle returned through an `out` parameter belongs to the caller, who
 *  releases it with that type's free or close function. Strings and binary
 *  values read from the database are borrowed: they point into the database
 *  (or, inside a write transaction, into memory owned by the transaction) and
 *  stay valid until the transaction that read them ends. Inputs are copied
 *  before a function returns; the library keeps no caller pointer.
 *
 *  @section threading Threading
 *  An environment may be used from any thread. A transaction, and everything
 *  opened under it, must be used by one thread at a time. Read transactions
 *  are not tied to a thread; a write transaction must end on the thread that
 *  began it, and a thread may have at most one write transaction per
 *  environment. Do not use an environment across fork().
 *
 *  @section storage Storage and map growth
 *  The file is an LMDB environment, mapped into memory. The map reserves
 *  address space, not disk: the file grows only with its data. The default
 *  reservation (1 TiB on 64-bit systems) is meant never to fill. A write that
 *  fills a smaller map fails at once with #LAR_EMAPFULL and can only be
 *  aborted; the map then doubles as soon as no transaction of this process on
 *  the file is live (the end of the last one grows it), and the write can run
 *  again. No write or read ever waits for another thread's transaction to let
 *  the map grow. Long-lived read transactions keep old pages alive, so the
 *  file grows while they are open.
 *
 *  @section failed Failed writes
 *  A write transaction in which a change to the file failed (a full map, an
 *  I/O error, memory), or in which an operation that had already changed
 *  something then failed (damaged data found midway), is failed as a whole,
 *  as LMDB's are: every later call in
 *  it returns #LAR_EMISUSE, lar_txn_commit() stores nothing, and only
 *  lar_txn_abort() or lar_txn_free() remain. Errors found before anything was
 *  changed (a wrong type, a taken primary key, an unknown class) leave the
 *  transaction usable.
 */
#ifndef LARDER_H
#define LARDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup version Version
 *  @{
 */
/** Library major version: changes when the API or ABI breaks. */
#define LARDER_VERSION_MAJOR 0
/** Library minor version: changes when features are added. */
#define LARDER_VERSION_MINOR 1
/** Library patch version. */
#define LARDER_VERSION_PATCH 0
/** The library version as a string. */
#define LARDER_VERSION_STRING "0.1.0"
/** The library version as one number: MAJOR * 1000000 + MINOR * 1000 + PATCH. */
#define LARDER_VERSION_NUMBER 1000
/** The on-disk format this library writes and reads. Files of another format are
 * refused with #LAR_EVERSION: a newer one, or an older one whose layout changed
 * (format 3 keeps an embedded object's owner in its row, where format 2 kept it in the
 * backlink table, orders decimals among the other numbers in sets of mixed values, and
 * keys the objects of a class with an int primary key by that key, with no primary-key
 * entry; format 2 packs set elements into blocks, where format 1 stored one entry per
 * element). */
#define LARDER_FORMAT_VERSION 3

/** @brief Return the version of the linked library.
 *
 * Compare it with the LARDER_VERSION_* macros to detect a header and library
 * mismatch.
 * @param[out] major  Receives the major version; may be NULL.
 * @param[out] minor  Receives the minor version; may be NULL.
 * @param[out] patch  Receives the patch version; may be NULL.
 * @return The version string, a static string owned by the library.
 *         This function cannot fail.
 */
const char *lar_version(int *major, int *minor, int *patch);
/** @} */

/** @defgroup errors Return codes
 *  @{
 */
/** Success. */
#define LAR_OK 0
/** An argument is invalid: a NULL pointer, an index out of range, a value
 *  that breaks a rule (invalid UTF-8, an object of another class...). */
#define LAR_EINVAL (-1)
/** The call is not allowed in this state: a write in a read transaction, a
 *  second write transaction on one thread, use of an ended transaction. */
#define LAR_EMISUSE (-2)
/** The object, class or property does not exist. Also the end of an iteration. */
#define LAR_ENOTFOUND (-3)
/** An object with this primary key already exists. */
#define LAR_EEXISTS (-4)
/** The value's type does not match the property, or it is null for a
 *  required property. */
#define LAR_ETYPE (-5)
/** The schema differs from the one stored in the file. */
#define LAR_ESCHEMA (-6)
/** The file is not a Larder database. It was left untouched. */
#define LAR_ENOTLARDER (-7)
/** The file uses a format version this library does not read (a newer one, or an older
 * one whose layout changed). It was left untouched. */
#define LAR_EVERSION (-8)
/** The feature is described by the API but not implemented yet. */
#define LAR_ENOTSUP (-9)
/** Out of memory. */
#define LAR_ENOMEM (-10)
/** An I/O or storage error; the message gives the cause. */
#define LAR_EIO (-11)
/** The database was opened read-only. */
#define LAR_EREADONLY (-12)
/** The object has been deleted. */
#define LAR_EDELETED (-13)
/** The write filled the map, and failed: abort it. The map doubles once no
 *  transaction of this process is live, and the write can then run again
 *  (see @ref storage). Also returned when another process grew the file
 *  beyond this process's map while this process holds transactions. */
#define LAR_EMAPFULL (-14)
/** The file is damaged: data this library cannot decode, or, at open, a file
 *  shorter than its header says (truncated) or a damaged LMDB header page
 *  (see lar_env_open() for what is and is not detected). It was left untouched. */
#define LAR_ECORRUPT (-15)
/** A limit was reached: too many readers, too many classes. */
#define LAR_EBUSY (-16)

/** The last error of the calling thread. */
typedef struct lar_error {
    int code;            /**< A LAR_E* code, or LAR_OK if no error was recorded. */
    const char *message; /**< A message naming the cause; never NULL. */
} lar_error;

/** @brief Return the calling thread's last error.
 *
 * Ownership: the result is owned by the library and valid until the next
 * Larder call on this thread.
 * @return Never NULL. Its code is #LAR_OK when no error was recorded since the
 *         thread started or since lar_error_clear(). This function cannot fail.
 */
const lar_error *lar_error_last(void);

/** @brief Forget the calling thread's last error. This function cannot fail. */
void lar_error_clear(void);

/** @brief Return a static description of a LAR_* code.
 * @param[in] code  A LAR_* code; unknown codes give "unknown error".
 * @return A static string; never NULL. This function cannot fail.
 */
const char *lar_strerror(int code);
/** @} */

/** @defgroup values Values
 *  @{
 */
/** The type of a value or a property. The numbers are stored in files and never change. */
typedef enum lar_type {
    LAR_TYPE_NULL = 0,        /**< No value (an optional property holding nil). */
    LAR_TYPE_INT = 1,         /**< 64-bit signed integer. */
    LAR_TYPE_BOOL = 2,        /**< Boolean. */
    LAR_TYPE_FLOAT = 3,       /**< 32-bit IEEE float. */
    LAR_TYPE_DOUBLE = 4,      /**< 64-bit IEEE double. */
    LAR_TYPE_STRING = 5,      /**< UTF-8 string. */
    LAR_TYPE_BINARY = 6,      /**< Bytes. */
    LAR_TYPE_TIMESTAMP = 7,   /**< Seconds and nanoseconds since 1970-01-01 UTC. */
    LAR_TYPE_OBJECT_ID = 8,   /**< 12-byte ObjectId. */
    LAR_TYPE_UUID = 9,        /**< 16-byte UUID. */
    LAR_TYPE_DECIMAL128 = 10, /**< IEEE 754 decimal128, BID encoding. */
    LAR_TYPE_LINK = 11,       /**< A link to an object (property: to target_class). */
    LAR_TYPE_MIXED = 12,      /**< Property type only (Realm's AnyRealmValue): holds null, a value
                                   of any scalar type, a link to an object of any class, or a
                                   nested list or dictionary (#LAR_TYPE_LIST, #LAR_TYPE_DICTIONARY). */
    LAR_TYPE_LINKING_OBJECTS = 13, /**< Property type only: the computed backlinks of origin_property. */
    LAR_TYPE_LIST = 14,       /**< Value only, in a mixed value: a nested list of mixed values. */
    LAR_TYPE_DICTIONARY = 15  /**< Value only, in a mixed value: a nested dictionary (string keys,
                                   mixed values). */
} lar_type;

/** A class identifier, stable for the life of the file. */
typedef uint32_t lar_class;
/** An object key, unique within its class. Keys are never reused, with one
 *  exception: in a class whose primary key is an int, an object's key derives
 *  from its primary key, so an object created with the primary key of a deleted
 *  one may take its key (lar_obj_stamp() tells the two apart). */
typedef uint64_t lar_objkey;

/** A point in time. */
typedef struct lar_timestamp {
    int64_t seconds;     /**< Seconds since 1970-01-01 00:00:00 UTC. */
    int32_t nanoseconds; /**< 0...999999999, of the same sign as seconds when seconds != 0. */
} lar_timestamp;

/** A 12-byte ObjectId (4-byte big-endian seconds, 5 random bytes, 3-byte counter). */
typedef struct lar_object_id { uint8_t bytes[12]; } lar_object_id;
/** A 16-byte UUID in RFC 4122 byte order. */
typedef struct lar_uuid { uint8_t bytes[16]; } lar_uuid;
/** An IEEE 754-2008 decimal128 in binary integer decimal encoding. */
typedef struct lar_decimal128 { uint64_t low; uint64_t high; } lar_decimal128;
/** A UTF-8 string of size bytes. Strings read from a database are followed by a NUL byte. */
typedef struct lar_string { const char *data; size_t size; } lar_string;
/** A run of size bytes. */
typedef struct lar_binary { const void *data; size_t size; } lar_binary;
/** A reference to an object. Plain data: it stays valid to hold after its
 *  transaction ends, and functions report LAR_EDELETED once it is deleted. */
typedef struct lar_obj { lar_class cls; lar_objkey key; } lar_obj;

/** A tagged value. `type` says which member of `as` is meaningful.
 *
 *  A mixed property, or element of a mixed collection, is read and written as the
 *  lar_value it holds: #LAR_TYPE_NULL, a scalar type, #LAR_TYPE_LINK whose
 *  `link` names the object's class and key (a typed link), or a nested
 *  collection (Realm 10.51's nested AnyRealmValue): #LAR_TYPE_LIST or
 *  #LAR_TYPE_DICTIONARY. Written, such a value means "a new, empty nested
 *  collection" (its `nested` member is ignored); it replaces whatever the slot
 *  held. Read, its `nested` member is the collection's id, which
 *  lar_coll_open() and lar_coll_child() turn into a handle (see @ref nested).
 *  A value of type #LAR_TYPE_MIXED or #LAR_TYPE_LINKING_OBJECTS is never one. */
typedef struct lar_value {
    lar_type type;
    union {
        int64_t integer;
        int boolean;               /**< 0 or 1. */
        float float32;
        double float64;
        lar_string string;
        lar_binary binary;
        lar_timestamp timestamp;
        lar_object_id object_id;
        lar_uuid uuid;
        lar_decimal128 decimal128;
        lar_obj link;
        uint64_t nested;           /**< #LAR_TYPE_LIST, #LAR_TYPE_DICTIONARY: the nested collection's id. */
    } as;
} lar_value;
/** @} */

/** @defgroup env Environments
 *  @{
 */
/** An open database file. Opening one path twice in a process returns the same
 *  environment, reference counted. */
typedef struct lar_env lar_env;

/** Open the file read-only: writes return #LAR_EREADONLY. */
#define LAR_ENV_READONLY 0x1u
/** Skip the fsync at commit: faster, but a crash may lose the last commits
 *  (never the file's integrity). */
#define LAR_ENV_NOSYNC 0x2u

/** The options struct's current version; set by lar_env_options_init(). */
#define LAR_ENV_OPTIONS_VERSION 1
/** Options for lar_env_open(). Initialise with lar_env_options_init(). */
typedef struct lar_env_options {
    unsigned int version;    /**< #LAR_ENV_OPTIONS_VERSION. */
    size_t initial_map_size; /**< Bytes of address space to map. Default: 1 TiB on 64-bit
                                  systems (less where RLIMIT_AS forbids it), 1 GiB otherwise.
                                  A smaller map doubles after a write fills it; see @ref storage. */
    unsigned int flags;      /**< LAR_ENV_* flags. Default 0. */
} lar_env_options;

/** @brief Fill options with their defaults.
 * @param[out] options  The struct to fill.
 * @return #LAR_OK, or #LAR_EINVAL if options is NULL.
 */
int lar_env_options_init(lar_env_options *options);

/** @brief Open or create a database file.
 *
 * A missing file is created (unless #LAR_ENV_READONLY), together with its
 * lock file `<path>-lock`. An existing file must be a Larder database of this
 * format version or older; otherwise it is refused and not modified. A file
 * whose first open never finished (the process died while or after LMDB wrote
 * its header, before Larder's setup committed) holds no data and is set up as a
 * new one; read-only, it is refused with #LAR_ENOTLARDER, as an empty file is.
 * Opens of one file in several processes wait for a writable open that is
 * creating or setting the file up, so none reads a half-written header. If the
 * same file is already open in this process, the open environment is returned
 * with its reference count raised, and options are ignored.
 *
 * Damage: before LMDB maps an existing file, both of its LMDB header pages are
 * read and the file is refused with #LAR_ECORRUPT, untouched, when it is shorter
 * than the pages they name (a truncated file: the most common damage), shorter
 * than the two header pages, when their page size is not a power of two from
 * 4 KiB to 32 KiB or they disagree on it, or when the root page they name for
 * LMDB's main or free-page table lies outside the file; then the root of each
 * table (as recorded in the main table) is checked the same way. Other damage
 * inside the B-tree pages (flipped bytes in a page LMDB trusts) is not detected
 * at open: LMDB may report it later as #LAR_ECORRUPT, a damaged row is reported
 * as #LAR_ECORRUPT by the read that decodes it, and some such damage still
 * crashes the process inside LMDB (a node offset or child page number pointing
 * past the end of the file raises SIGBUS).
 *
 * Readers that died holding a snapshot (killed, crashed) are cleared when a file
 * opens, when the reader table is full, and by writers as the file grows, so they
 * neither fill the table nor keep old pages from reuse. The table has 256 slots:
 * each live read transaction takes one, and a process keeps up to two more per
 * open file, for freed read transactions it renews at the next lar_txn_begin()
 * (LMDB allocates and zeroes tens of KiB for a new one).
 *
 * Read-only files: #LAR_ENV_READONLY opens a file on a read-only file system, or
 * in a directory where the lock file is missing and cannot be created (a bundled
 * database), without a lock file. No process has the file open for writing then
 * (it would have made the lock file), but one that starts writing it later does
 * not see this process's snapshots and may overwrite pages they read: open files
 * this way only where nothing writes them. Writable, such a file is refused.
 * Ownership: the caller owns *out and releases it with lar_env_close().
 * @param[in]  path     File path, UTF-8.
 * @param[in]  options  Options, or NULL for the defaults.
 * @param[out] out      Receives the environment.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, bad options version);
 *         #LAR_ENOTLARDER (the file is not a Larder database);
 *         #LAR_ECORRUPT (truncated, or a damaged header page; see above);
 *         #LAR_EREADONLY (a writable open of a file, or in a directory, this
 *         process may not write); #LAR_EVERSION (a newer format, or an older one this
 *         library no longer reads); #LAR_EIO (the
 *         file cannot be opened or created; the message gives errno's text);
 *         #LAR_ENOMEM.
 */
int lar_env_open(const char *path, const lar_env_options *options, lar_env **out);

/** @brief Release one reference to an environment; the last one closes it.
 *
 * Releasing the last reference fails, leaving the environment open, while
 * transactions are active in it.
 * @param[in] env  An environment from lar_env_open(); NULL is ignored.
 * @return #LAR_OK, or #LAR_EMISUSE if this is the last reference and
 *         transactions of this environment are still active (end them first).
 */
int lar_env_close(lar_env *env);

/** Facts about an open environment. */
typedef struct lar_env_info {
    size_t map_size;         /**< Bytes currently mapped. */
    size_t used_size;        /**< Bytes of the file in use. */
    uint64_t schema_version; /**< The schema version stored in the file. */
    uint32_t format_version; /**< The file's format version. */
    uint32_t class_count;    /**< Classes in the schema. */
} lar_env_info;

/** @brief Read facts about an environment.
 * @param[in]  env  An open environment.
 * @param[out] out  Receives the facts.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument), #LAR_EIO.
 */
int lar_env_info_get(lar_env *env, lar_env_info *out);

/** @brief Count the versions of the file that LMDB keeps.
 *
 * The newest version, and every older one a read transaction still sees, in
 * any process (LMDB's reader table), each once. Pages an older version still
 * uses cannot be reused: while it is high, writes grow the file. Reader slots of
 * dead processes count until cleared (see lar_env_open()).
 * @param[in]  env  An open environment.
 * @param[out] out  Receives the count, at least 1.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument); #LAR_ENOMEM; #LAR_EIO.
 */
int lar_env_version_count(lar_env *env, uint64_t *out);

/** @brief Flush every commit of this process to disk.
 *
 * Makes the commits made with #LAR_COMMIT_NOSYNC (and, on an environment
 * opened with #LAR_ENV_NOSYNC, every commit) durable: once this returns
 * #LAR_OK they survive an operating-system crash or a power loss. Commits are
 * made in order, so one sync covers every commit before it (a group commit:
 * commit several with #LAR_COMMIT_NOSYNC, then sync once). Any thread may call
 * it, inside a transaction or not.
 * @param[in] env  An open environment.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL); #LAR_EREADONLY (a read-only
 *         environment: it has nothing to flush); #LAR_EIO (the flush failed).
 */
int lar_env_sync(lar_env *env);

/** @brief Write a compacted copy of the file.
 *
 * Copies the newest committed version of env's file to a new file at path,
 * without its free pages (so the copy is as small as the data allows), and
 * flushes it to disk (Realm's writeCopy). The copy reads one snapshot: writers
 * in this and other processes go on meanwhile, and what they commit after the
 * copy began is not in it. Any thread may call it, inside a transaction or not
 * (an uncommitted write of this thread is not in the copy). The copy opens
 * with lar_env_open() as any Larder file; its lock file is made then.
 * @param[in] env   An open environment.
 * @param[in] path  The new file's path, NUL-terminated. It must not exist: an
 *                  existing file is never written over.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, an empty path);
 *         #LAR_EEXISTS (path exists); #LAR_EREADONLY (the directory cannot be
 *         written); #LAR_ENOMEM; #LAR_EIO (no such directory, a full disk, a
 *         failed write or flush: a partial copy is removed).
 */
int lar_env_copy(lar_env *env, const char *path);
/** @} */

/** @defgroup schema Schema
 *  @{
 */
/** How a property holds its values. The numbers are stored in files. */
typedef enum lar_collection {
    LAR_COLLECTION_NONE = 0, /**< One value. */
    LAR_COLLECTION_LIST = 1, /**< An ordered list of values. */
    LAR_COLLECTION_SET = 2,  /**< A set of distinct values. */
    LAR_COLLECTION_MAP = 3   /**< A map from string keys to values. */
} lar_collection;

/** The property may hold null (for collections: its elements may). */
#define LAR_PROP_OPTIONAL 0x1u
/** The property is the class's primary key (int, string, ObjectId or UUID). */
#define LAR_PROP_PRIMARY_KEY 0x2u
/** The longest string primary key, in bytes. */
#define LAR_PRIMARY_KEY_MAX 475
/** The property has an index (int, bool, string, timestamp, ObjectId, UUID). */
#define LAR_PROP_INDEXED 0x4u
/** The property owns the objects it links to: deleting its object deletes them
 *  too (cascading deletes; Realm has no such option). Valid only on links: a
 *  to-one link, or a list, set or map of objects. The rule, applied by
 *  lar_obj_delete() and lar_objects_delete_all() in the same transaction:
 *  an object reached from a deleted object through a cascading property is
 *  deleted as well, recursively, unless a cascading link from an object that
 *  is not being deleted still holds it (directly, or through a chain of
 *  cascading links from such an object). Only cascading links own: an object
 *  that ordinary links also reach is deleted, and those links become null (or
 *  leave their lists and sets) as with any delete. Cycles of cascading links
 *  end: each object is visited once, and a cycle that only the deleted objects
 *  reach is deleted whole. The flag is stored with the schema; declaring a
 *  stored property with the flag added or removed is a schema change. */
#define LAR_PROP_CASCADE 0x8u

/** A property of a class. */
typedef struct lar_property_def {
    const char *name;          /**< Unique in its class, UTF-8. */
    lar_type type;             /**< Value or element type; never #LAR_TYPE_NULL. */
    lar_collection collection; /**< #LAR_COLLECTION_NONE for a single value. */
    unsigned int flags;        /**< LAR_PROP_* flags. */
    const char *target_class;  /**< For links and linking objects: the target class; else NULL. */
    const char *origin_property; /**< For linking objects: the link property of target_class; else NULL. */
} lar_property_def;

/** Objects of the class exist only inside the one object that links to them
 *  (Realm's EmbeddedObject); see @ref embedded. */
#define LAR_CLASS_EMBEDDED 0x1u

/** A class: a name and its properties. */
typedef struct lar_class_def {
    const char *name;                     /**< Unique, UTF-8. */
    const lar_property_def *properties;   /**< property_count properties. */
    size_t property_count;
    unsigned int flags;                   /**< LAR_CLASS_* flags. */
} lar_class_def;

/** @brief Declare the classes a program uses and the schema version.
 *
 * Classes not yet in the file are added. A class already in the file must
 * have the same properties (in any order) with the same types and flags;
 * classes in the file that are not named are kept as they are. Any other
 * difference is refused and the message names each one. A schema version
 * lower than the stored one is refused; a higher one is stored.
 * Property kinds:
 * - a scalar (int ... Decimal128), required or #LAR_PROP_OPTIONAL;
 * - a link to one object: type #LAR_TYPE_LINK, target_class naming the target
 *   class, always #LAR_PROP_OPTIONAL (a link may be null);
 * - a list, set or map (string keys) of any scalar type, whose elements may be
 *   null when #LAR_PROP_OPTIONAL; or of objects (type #LAR_TYPE_LINK with a
 *   target_class): lists and sets of objects never hold null (no
 *   #LAR_PROP_OPTIONAL), map values of objects always may (#LAR_PROP_OPTIONAL);
 * - a mixed value (#LAR_TYPE_MIXED, Realm's AnyRealmValue), alone or as the
 *   elements of a list, set or map: null, any scalar, or a link to an object of
 *   any class. As in Realm it is never #LAR_PROP_OPTIONAL (null is one of its
 *   values), has no target_class, and cannot be a primary key or indexed. A
 *   schema with a mixed property makes every class a possible link target.
 * Any link property (to one object or a collection of them) may also be
 * #LAR_PROP_CASCADE: deletes then cascade through it.
 * A link's target may be a class stored in the file or one declared in the
 * same call, in any order. Links, collections, primary keys and indexes do not
 * mix: a link or collection cannot be a primary key or indexed. Linking
 * objects return #LAR_ENOTSUP.
 * An embedded class (#LAR_CLASS_EMBEDDED) has no primary key and no indexed
 * property, and its link properties may link only to embedded classes (its
 * mixed properties are not restricted); a set cannot hold embedded objects. A
 * to-one link, list or map of an embedded class owns its objects (see
 * @ref embedded).
 * Property indexes in the other functions follow the stored order: look them
 * up with lar_property_find().
 * Transactions: when the calling thread holds env's write transaction, the
 * change is made inside it (visible to it at once, stored when it commits,
 * gone if it aborts; a change that fails midway fails that transaction, see
 * @ref failed); otherwise this call begins and commits its own, running it
 * again when it filled the map and the map could grow.
 * @param[in] env            An open, writable environment.
 * @param[in] classes        class_count class definitions; copied.
 * @param[in] class_count    Number of classes.
 * @param[in] schema_version The application's schema version.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, empty or duplicate name,
 *         invalid UTF-8, two primary keys, a type that cannot be a primary key
 *         or indexed, a link without a target_class or to a class that does not
 *         exist, a to-one link or map of objects without #LAR_PROP_OPTIONAL, a
 *         list or set of objects with it, a mixed property with it, a
 *         target_class on a property that is not a link, an origin_property on
 *         one that is not linking objects,
 *         #LAR_PROP_CASCADE on a property that holds no links, a primary key
 *         or index in an embedded class, a link from an embedded class to one
 *         that is not embedded, a set of embedded objects;
 *         the message names the class and property); #LAR_ENOTSUP; #LAR_ESCHEMA (differences, or an older
 *         version); #LAR_EREADONLY; #LAR_EBUSY (too many classes); #LAR_EIO;
 *         #LAR_ENOMEM.
 */
int lar_schema_apply(lar_env *env, const lar_class_def *classes, size_t class_count,
                     uint64_t schema_version);

/** @brief Find a class by name.
 *
 * This and the other lookups below read the newest schema without waiting:
 * when another process grew the file beyond this process's map while this
 * process holds transactions, they answer from the newest schema this process
 * has seen.
 * @param[in]  env   An open environment.
 * @param[in]  name  The class name.
 * @param[out] out   Receives the class.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument), #LAR_ENOTFOUND.
 */
int lar_class_find(lar_env *env, const char *name, lar_class *out);

/** Facts about a class. Strings are owned by the environment and valid until it closes. */
typedef struct lar_class_info {
    const char *name;
    uint32_t property_count;
    int32_t primary_key;  /**< Index of the primary key property, or -1. */
    unsigned int flags;   /**< LAR_CLASS_* flags. */
} lar_class_info;

/** @brief Describe a class.
 * @param[in]  env  An open environment.
 * @param[in]  cls  A class of env.
 * @param[out] out  Receives the description; its strings live until env closes.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class).
 */
int lar_class_info_get(lar_env *env, lar_class cls, lar_class_info *out);

/** @brief Find a property of a class by name.
 * @param[in]  env   An open environment.
 * @param[in]  cls   A class of env.
 * @param[in]  name  The property name.
 * @param[out] out   Receives the property's index.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class), #LAR_ENOTFOUND.
 */
int lar_property_find(lar_env *env, lar_class cls, const char *name, uint32_t *out);

/** @brief Describe a property.
 * @param[in]  env   An open environment.
 * @param[in]  cls   A class of env.
 * @param[in]  prop  A property index.
 * @param[out] out   Receives the definition; its strings live until env closes.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class, index out of range).
 */
int lar_property_info_get(lar_env *env, lar_class cls, uint32_t prop, lar_property_def *out);
/** @} */

/** @defgroup txn Transactions
 *  @{
 */
/** A transaction: a read snapshot or the write transaction. */
typedef struct lar_txn lar_txn;

/** Begin a read transaction. */
#define LAR_TXN_READ 0x0u
/** Begin the write transaction; waits while another thread or process writes. */
#define LAR_TXN_WRITE 0x1u

/** @brief Begin a transaction.
 *
 * A read transaction sees the last commit at the time it began, and nothing
 * after. A write transaction also sees its own changes; only one exists at a
 * time per file, across threads and processes, so this call waits for it.
 * Ownership: the caller owns *out and releases it with lar_txn_free().
 * @param[in]  env    An open environment.
 * @param[in]  flags  #LAR_TXN_READ or #LAR_TXN_WRITE.
 * @param[out] out    Receives the transaction.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, unknown flag);
 *         #LAR_EMISUSE (the thread already holds a write transaction on env);
 *         #LAR_EREADONLY (write on a read-only environment); #LAR_EBUSY (too
 *         many readers); #LAR_EIO; #LAR_ENOMEM.
 */
int lar_txn_begin(lar_env *env, unsigned int flags, lar_txn **out);

/** @brief Commit a write transaction, or end a read transaction.
 *
 * The transaction ends whether or not the commit succeeds; on failure nothing
 * it wrote is stored. The handle stays allocated: free it with lar_txn_free().
 * Iterators opened in it stop working.
 * @param[in] txn  An active transaction.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL); #LAR_EMISUSE (already ended, a
 *         write in which a change failed (see @ref failed), or a write
 *         transaction ended on another thread than the one that began it);
 *         #LAR_EMAPFULL (the map filled: see @ref storage); #LAR_EIO.
 */
int lar_txn_commit(lar_txn *txn);

/** Commit without waiting for the disk: see lar_txn_commit_flags(). */
#define LAR_COMMIT_NOSYNC 0x1u

/** @brief Commit a write transaction with options, or end a read transaction.
 *
 * lar_txn_commit() with flags. #LAR_COMMIT_NOSYNC skips the fsyncs of the
 * commit: it is stored and visible to every reader at once, and survives the
 * process being killed, but an operating-system crash or a power loss may undo
 * it (never the file's integrity, as #LAR_ENV_NOSYNC) until lar_env_sync() or a
 * later commit without the flag flushes it. Group commits this way, then sync
 * once. Flags are ignored for a read transaction.
 * @param[in] txn    An active transaction.
 * @param[in] flags  0 or #LAR_COMMIT_NOSYNC.
 * @return lar_txn_commit()'s codes; #LAR_EINVAL also for an unknown flag (the
 *         transaction then stays active).
 */
int lar_txn_commit_flags(lar_txn *txn, unsigned int flags);

/** @brief End a transaction, discarding its writes.
 * @param[in] txn  A transaction; NULL or an ended one is ignored.
 * @return #LAR_OK, or #LAR_EMISUSE (a write transaction ended on another
 *         thread than the one that began it: it is then left active).
 */
int lar_txn_abort(lar_txn *txn);

/** @brief Start an ended read transaction again on the newest commit.
 *
 * Cheaper than freeing it and beginning another.
 * @param[in] txn  A read transaction that has ended.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL); #LAR_EMISUSE (a write transaction,
 *         or still active); #LAR_EBUSY; #LAR_EIO.
 */
int lar_txn_renew(lar_txn *txn);

/** @brief Release a transaction handle, aborting it if it is active.
 * @param[in] txn  A transaction, or NULL.
 */
void lar_txn_free(lar_txn *txn);

/** @brief Tell whether a transaction is active and whether it writes.
 * @param[in]  txn        A transaction.
 * @param[out] is_active  Receives 1 if active, 0 if ended; may be NULL.
 * @param[out] is_write   Receives 1 for a write transaction; may be NULL.
 * @return #LAR_OK, or #LAR_EINVAL (txn is NULL).
 */
int lar_txn_state(const lar_txn *txn, int *is_active, int *is_write);

/** @brief Read the version a transaction sees.
 *
 * Versions number the commits of a file and only grow: a read transaction sees
 * the version of the last commit when it began; a write transaction, the one
 * its commit will make (one more than the version it began on).
 * @param[in]  txn  An active transaction.
 * @param[out] out  Receives the version.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument); #LAR_EMISUSE (the
 *         transaction has ended).
 */
int lar_txn_version(const lar_txn *txn, uint64_t *out);
/** @} */

/** @defgroup objects Objects
 *  @{
 */
/** @brief Create an object.
 *
 * values gives every property in property-index order, or is NULL (with
 * value_count 0) to give each property its default: 0, false, "", empty
 * binary, the epoch, the zero ObjectId, UUID and decimal, or null when
 * optional. A value of type #LAR_TYPE_INT is accepted for float and double
 * properties. A link property takes #LAR_TYPE_LINK (an existing object of its
 * target class) or #LAR_TYPE_NULL; a mixed property takes null, any scalar
 * (kept with its own type: an int stays an int) or #LAR_TYPE_LINK to an
 * existing object of any class (its default is null), or #LAR_TYPE_LIST or
 * #LAR_TYPE_DICTIONARY for a new, empty nested collection (see @ref nested); a
 * collection property takes only #LAR_TYPE_NULL, and starts empty.
 * @param[in]  txn          An active write transaction.
 * @param[in]  cls          The class.
 * @param[in]  values       value_count values, or NULL; copied.
 * @param[in]  value_count  0 or the class's property count.
 * @param[out] out          Receives the new object; may be NULL.
 * An embedded class is refused: its objects are created in their owner with
 * lar_obj_create_embedded() and its siblings.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL txn, unknown class, an embedded class
 *         ("Embedded objects cannot be created directly"), wrong count,
 *         invalid UTF-8, a bad timestamp, a string primary key longer than
 *         #LAR_PRIMARY_KEY_MAX bytes, a link to an object that does not exist
 *         or was deleted, or, from a mixed property, to a class the schema does
 *         not have); #LAR_ETYPE (a value of the wrong type, a link to an
 *         object of another class than the target, a value other than null for
 *         a collection, null for a required property, or a value of type
 *         #LAR_TYPE_MIXED or #LAR_TYPE_LINKING_OBJECTS for a mixed one); #LAR_EEXISTS (the primary key is
 *         taken; the transaction stays usable); #LAR_EMISUSE (not an active
 *         write transaction); #LAR_EMAPFULL; #LAR_EIO.
 */
int lar_obj_create(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count,
                   lar_obj *out);

/** @brief Read one property of an object.
 *
 * Ownership: a string or binary value points into memory owned by the
 * transaction, valid until the transaction ends; copy it to keep it longer.
 * Strings are followed by a NUL byte.
 * @param[in]  txn   An active transaction.
 * @param[in]  obj   The object.
 * @param[in]  prop  A property index.
 * A link reads as #LAR_TYPE_LINK with the target object, or #LAR_TYPE_NULL;
 * a mixed property reads as the value it holds, with its type (a link with its
 * class; a string or binary borrowed as above); a collection property reads as
 * #LAR_TYPE_NULL (its elements are read with the collection functions).
 * @param[out] out   Receives the value; #LAR_TYPE_NULL for null.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, unknown class, index out
 *         of range); #LAR_EDELETED (no such object); #LAR_EMISUSE (ended
 *         transaction); #LAR_ECORRUPT.
 */
int lar_obj_get(lar_txn *txn, lar_obj obj, uint32_t prop, lar_value *out);

/** @brief Read every property of an object at once.
 *
 * The fast path for reading whole objects: one lookup, one decode.
 * Ownership: as lar_obj_get().
 * @param[in]  txn    An active transaction.
 * @param[in]  obj    The object.
 * @param[out] out    Receives count values in property-index order.
 * @param[in]  count  The class's property count.
 * @return As lar_obj_get(); #LAR_EINVAL also when count is not the property count.
 */
int lar_obj_get_all(lar_txn *txn, lar_obj obj, lar_value *out, size_t count);

/** @brief Write one property of an object.
 *
 * A primary key can be written only with the value it already has. A link
 * takes an existing object of the property's target class, or null; the
 * backlink index follows (see lar_backlinks_count()). A mixed property takes
 * a value of any other type than before (null, a scalar, a link to an existing
 * object of any class), and keeps the backlink index in step the same way; a
 * mixed property also takes #LAR_TYPE_LIST or #LAR_TYPE_DICTIONARY (a new, empty
 * nested collection: see @ref nested), and a nested collection it held before is
 * freed, whole. A collection property takes only null, which empties it (as Realm does).
 * @param[in] txn    An active write transaction.
 * @param[in] obj    The object.
 * @param[in] prop   A property index.
 * @param[in] value  The value; copied.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, unknown class, index out
 *         of range, invalid UTF-8, a changed primary key, a link to an
 *         object that does not exist or was deleted, or from a mixed property
 *         to a class the schema does not have); #LAR_ETYPE (also a link
 *         to an object of another class, a value of type #LAR_TYPE_MIXED or
 *         #LAR_TYPE_LINKING_OBJECTS for a mixed property); #LAR_EDELETED; #LAR_EMISUSE;
 *         #LAR_EMAPFULL; #LAR_EIO. Nothing is changed on error.
 */
int lar_obj_set(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value);

/** @brief Delete an object, and the objects it owns through cascading properties.
 *
 * Links to it from other objects become null and it leaves every list, as in
 * Realm; the same holds for links held in mixed values: a mixed property
 * becomes null, lists and sets of mixed values lose the element, and a map of
 * mixed values keeps the key with null. Its own links leave the backlink
 * index and its collections are freed.
 * Cascades: when obj's class has #LAR_PROP_CASCADE properties, the objects
 * they link to are deleted in the same call, recursively, except those that
 * a cascading link from an object outside the deleted ones still holds
 * (directly or through a chain of cascading links); see #LAR_PROP_CASCADE.
 * Each deleted object is deleted as obj is. The objects to delete are found
 * before anything changes: an error while finding them (#LAR_ENOMEM,
 * #LAR_ECORRUPT) leaves the transaction as it was; an error after the first
 * change fails the transaction (see @ref failed). Cost: the objects reachable
 * from obj through cascading links are read once, with their backlinks.
 * @param[in] txn  An active write transaction.
 * @param[in] obj  The object.
 * @return #LAR_OK, or: #LAR_EINVAL; #LAR_EDELETED (already deleted);
 *         #LAR_EMISUSE; #LAR_EMAPFULL; #LAR_EIO; #LAR_ENOMEM; #LAR_ECORRUPT.
 */
int lar_obj_delete(lar_txn *txn, lar_obj obj);

/** @brief Tell whether an object exists in this transaction's view.
 * @param[in]  txn  An active transaction.
 * @param[in]  obj  The object.
 * @param[out] out  Receives 1 if it exists, else 0.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class), #LAR_EMISUSE.
 */
int lar_obj_exists(lar_txn *txn, lar_obj obj, int *out);

/** @brief Read an object's stamp, which tells apart the objects that one key
 *  named at different times.
 *
 * In a class whose primary key is an int, objects are keyed by their primary
 * key (one B-tree probe finds them), so an object created with the primary key
 * of a deleted object may take the deleted object's key. Each object of such a
 * class has a stamp, distinct from that of every other object created in the
 * file: a holder of a #lar_obj keeps the stamp to learn that its object was
 * deleted even when a new object took its key. Objects of other classes, whose
 * keys are never reused, have the stamp 0.
 * @param[in]  txn  An active transaction.
 * @param[in]  obj  The object.
 * @param[out] out  Receives the stamp.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, unknown class);
 *         #LAR_EDELETED (no object has that key); #LAR_EMISUSE; #LAR_ECORRUPT.
 */
int lar_obj_stamp(lar_txn *txn, lar_obj obj, uint64_t *out);

/** @brief Find an object by primary key, in O(log n).
 *
 * For a class whose primary key is an int, one probe of the class's table
 * (see lar_obj_stamp()).
 * @param[in]  txn  An active transaction.
 * @param[in]  cls  A class with a primary key.
 * @param[in]  key  The key value; #LAR_TYPE_NULL for an optional key's null.
 * @param[out] out  Receives the object.
 * @return #LAR_OK, or: #LAR_ENOTFOUND; #LAR_EINVAL (NULL argument, unknown
 *         class, the class has no primary key, a string key with NULL data
 *         and a non-zero size or invalid UTF-8); #LAR_ETYPE (wrong key type);
 *         #LAR_EMISUSE.
 */
int lar_obj_find(lar_txn *txn, lar_class cls, const lar_value *key, lar_obj *out);

/** @brief lar_obj_find(), also reading the found object's stamp (see lar_obj_stamp()).
 *
 * The stamp comes from the row the lookup found, with no second read: what a holder
 * of the object keeps, at the cost of the lookup alone. Nothing is written on failure.
 * @param[in]  txn    An active transaction.
 * @param[in]  cls    A class with a primary key.
 * @param[in]  key    The key value, as for lar_obj_find().
 * @param[out] out    Receives the object.
 * @param[out] stamp  Receives its stamp (0 in a class whose primary key is not an int).
 * @return #LAR_OK, or the errors of lar_obj_find(), and #LAR_EINVAL for a NULL stamp;
 *         #LAR_ECORRUPT (a damaged row).
 */
int lar_obj_find_stamped(lar_txn *txn, lar_class cls, const lar_value *key, lar_obj *out, uint64_t *stamp);

/** @brief Count the objects of a class, in O(1).
 * @param[in]  txn  An active transaction.
 * @param[in]  cls  The class.
 * @param[out] out  Receives the count.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class), #LAR_EMISUSE, #LAR_EIO.
 */
int lar_objects_count(lar_txn *txn, lar_class cls, uint64_t *out);

/** @brief Delete every object of a class.
 *
 * Each object is deleted as lar_obj_delete() deletes it, cascades included:
 * the objects of other classes that they alone owned go too.
 * @param[in] txn  An active write transaction.
 * @param[in] cls  The class.
 * @return #LAR_OK, or #LAR_EINVAL, #LAR_EMISUSE, #LAR_EMAPFULL, #LAR_EIO; with
 *         cascades, also #LAR_ENOMEM and #LAR_ECORRUPT (see lar_obj_delete()).
 */
int lar_objects_delete_all(lar_txn *txn, lar_class cls);
/** @} */

/** @defgroup embedded Embedded objects
 *  Objects of a #LAR_CLASS_EMBEDDED class have exactly one owner: the object
 *  whose to-one link, list element or map value links to them (Realm's
 *  EmbeddedObject). They are created in place by the functions of this group,
 *  which create the object from values (as lar_obj_create() takes them) and
 *  store the link in one call. They are read and written as other objects
 *  (lar_obj_get(), lar_obj_set(), lar_iter_open() ...).
 *
 *  Ownership rules, applied by every function of this header:
 *  - an embedded object is deleted when its owning link goes away: the link
 *    is set to another object or to null (lar_obj_set()), or the element is
 *    removed from its list or map (lar_list_remove(), lar_list_set(),
 *    lar_list_clear(), lar_map_put(), lar_map_remove(), lar_map_clear(), their
 *    _at forms on a handle from lar_coll_open(), a collection set to null), or
 *    its owner is deleted; its own embedded
 *    objects are deleted with it, recursively, in the same call. Moving or
 *    swapping list elements keeps them.
 *  - A link to an existing embedded object cannot be stored again:
 *    lar_obj_set() and lar_obj_create() refuse it with #LAR_EINVAL "Can't set
 *    link to existing managed embedded object" (setting a link to the object
 *    it already holds is allowed and changes nothing), lar_list_insert(),
 *    lar_list_append() and lar_list_set() with "Cannot add an existing managed
 *    embedded object to a List.", lar_map_put() with "Cannot add an existing
 *    managed embedded object to a Dictionary." (and so do their _at forms); a
 *    mixed value never holds one, nor does a nested list or dictionary in one.
 *  - Deleting an embedded object with lar_obj_delete() nulls its owner's link
 *    (or removes it from its list; a map keeps the key with null), as for any
 *    object.
 *  Storage: an embedded object is a row of its class's table, and its owner
 *  is recorded at the end of that row (not in the backlink table);
 *  lar_backlinks_list() finds it as any object's linking objects.
 *  The functions share these errors: #LAR_EINVAL (NULL txn, unknown class,
 *  property index out of range, a property that is not a link, list or map of
 *  an embedded class as the function requires, a position out of range, a map
 *  key that breaks the map rules, a value count other than 0 or the embedded
 *  class's property count, and the value errors of lar_obj_create());
 *  #LAR_ETYPE (as lar_obj_create()); #LAR_EDELETED (the owner does not exist);
 *  #LAR_EMISUSE (not an active write transaction, or a failed one);
 *  #LAR_EMAPFULL; #LAR_EIO; #LAR_ENOMEM. Errors found before anything changed
 *  leave the transaction usable; others fail it (see @ref failed).
 *  @{
 */
/** @brief Create an embedded object as the value of owner's to-one link property.
 *
 * The object the link held before, if any, is deleted (with its descendants).
 * @param[in]  txn          An active write transaction.
 * @param[in]  owner        The owning object.
 * @param[in]  prop         A to-one link property of owner's class to an embedded class.
 * @param[in]  values       The new object's values, as lar_obj_create() takes them, or NULL.
 * @param[in]  value_count  0 or the embedded class's property count.
 * @param[out] out          Receives the new object; may be NULL.
 * @return #LAR_OK, or an error of the group.
 */
int lar_obj_create_embedded(lar_txn *txn, lar_obj owner, uint32_t prop, const lar_value *values,
                            size_t value_count, lar_obj *out);

/** One embedded object for lar_obj_create_with_embedded() to create in place. */
typedef struct lar_embedded_init {
    uint32_t prop;            /**< A to-one link property of the owner's class, to an embedded class. */
    const lar_value *values;  /**< The object's values, as lar_obj_create() takes them, or NULL (defaults). */
    size_t value_count;       /**< 0 or the embedded class's property count. */
} lar_embedded_init;

/** @brief Create an object together with embedded objects in its to-one links.
 *
 * What lar_obj_create() and then lar_obj_create_embedded() for each element of
 * embedded do, in one call that writes each row once: the owner's row is
 * written holding its links, and each embedded object's row records its owner.
 * Every value is checked before anything is written, so a refused call leaves
 * the transaction usable (except #LAR_EMAPFULL, #LAR_EIO and #LAR_ENOMEM).
 * Embedded objects of the embedded objects, and those in lists and maps, are
 * created afterwards with the functions of this group.
 * @param[in]  txn             An active write transaction.
 * @param[in]  cls             The owner's class (not an embedded one).
 * @param[in]  values          The owner's values, as lar_obj_create() takes them (a
 *                             property named in embedded is null there: a link to an
 *                             existing embedded object is refused, as always).
 * @param[in]  value_count     0 or the class's property count.
 * @param[in]  embedded        embedded_count objects to create; NULL when embedded_count is 0.
 *                             Read only during the call.
 * @param[in]  embedded_count  How many; each property may be named once.
 * @param[out] out             Receives the new owner; may be NULL.
 * @param[out] embedded_out    Receives the new embedded objects, in the order of
 *                             embedded; may be NULL.
 * @return #LAR_OK, or an error of lar_obj_create() or of the group; #LAR_EINVAL also
 *         for a property named twice, embedded NULL with a count, or more
 *         embedded objects than the class has properties.
 */
int lar_obj_create_with_embedded(lar_txn *txn, lar_class cls, const lar_value *values, size_t value_count,
                                 const lar_embedded_init *embedded, size_t embedded_count, lar_obj *out,
                                 lar_obj *embedded_out);

/** @brief Create an embedded object and insert it into owner's list before position index.
 * @param[in]  index  A position up to the list's count (the count appends).
 * @return As lar_obj_create_embedded(), for a list property of an embedded class.
 */
int lar_list_insert_embedded(lar_txn *txn, lar_obj owner, uint32_t prop, size_t index, const lar_value *values,
                             size_t value_count, lar_obj *out);

/** @brief Create an embedded object in place of the element at position index of owner's
 *  list; the element it replaces is deleted.
 * @param[in]  index  A position below the list's count.
 * @return As lar_obj_create_embedded(), for a list property of an embedded class.
 */
int lar_list_set_embedded(lar_txn *txn, lar_obj owner, uint32_t prop, size_t index, const lar_value *values,
                          size_t value_count, lar_obj *out);

/** @brief Create an embedded object as the value of key in owner's map; the object the
 *  key held before, if any, is deleted.
 * @param[in]  key  The key; copied.
 * @return As lar_obj_create_embedded(), for a map property of an embedded class.
 */
int lar_map_put_embedded(lar_txn *txn, lar_obj owner, uint32_t prop, const lar_string *key,
                         const lar_value *values, size_t value_count, lar_obj *out);
/** @} */

/** @defgroup backlinks Backlinks
 *  Which objects link to an object, through which property: Realm's
 *  LinkingObjects. Every link write keeps an index of them, so these cost
 *  O(log n + k) for k linking objects.
 *  @{
 */
/** @brief Count the objects that link to target through one property.
 * @param[in]  txn          An active transaction.
 * @param[in]  target       The object linked to.
 * @param[in]  origin_cls   The class of the linking objects.
 * @param[in]  origin_prop  A property of origin_cls that links to target's class,
 *                          or a mixed property (or collection of mixed values),
 *                          whose links may go to any class.
 * @param[out] out          Receives the count: each linking object once.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL out, unknown class, index out of
 *         range, a property that does not link to target's class);
 *         #LAR_EDELETED (target does not exist); #LAR_EMISUSE (ended
 *         transaction); #LAR_ECORRUPT; #LAR_EIO.
 */
int lar_backlinks_count(lar_txn *txn, lar_obj target, lar_class origin_cls, uint32_t origin_prop,
                        uint64_t *out);

/** @brief List the objects that link to target through one property, in key order.
 *
 * Fills up to capacity objects whose keys are at least start; to read the
 * next ones, call again with start one past the last key received.
 * Ownership: out stays the caller's and must have room for capacity objects.
 * @param[in]  txn          An active transaction.
 * @param[in]  target       The object linked to.
 * @param[in]  origin_cls   The class of the linking objects.
 * @param[in]  origin_prop  As lar_backlinks_count()'s: a property that links to target's
 *                          class, or one of mixed values.
 * @param[in]  start        The smallest origin key to return; 0 for all.
 * @param[out] out          Receives the linking objects.
 * @param[in]  capacity     The most objects to return; at least 1.
 * @param[out] count        Receives how many were filled, on every return.
 * @return #LAR_OK with *count from 1 to capacity; #LAR_ENOTFOUND with
 *         *count 0 when none is left (the last error is not set); otherwise
 *         as lar_backlinks_count(), and #LAR_EINVAL when out or count is
 *         NULL or capacity is 0.
 */
int lar_backlinks_list(lar_txn *txn, lar_obj target, lar_class origin_cls, uint32_t origin_prop,
                       lar_objkey start, lar_obj *out, size_t capacity, size_t *count);
/** @} */

/** @defgroup lists Lists
 *  The elements of a list property (#LAR_COLLECTION_LIST), by position from 0.
 *  An element is a value of the property's type, or #LAR_TYPE_NULL when the
 *  property is #LAR_PROP_OPTIONAL; a list of objects holds #LAR_TYPE_LINK
 *  values of its target class (existing objects, never null), and keeps the
 *  backlink index (an object that appears twice links twice). A list of mixed
 *  values (#LAR_TYPE_MIXED) holds any of them, each with its own type, links
 *  to objects of any class (also in the backlink index) and nested lists and
 *  dictionaries (see @ref nested: the `_at` forms take handles). Deleting an
 *  object takes it out of every list; deleting a list's owner frees the list.
 *  Reads, inserts, sets and removals cost O(log n), whatever the list's size.
 *  The functions share these errors: #LAR_EINVAL (NULL argument, unknown
 *  class, property index out of range, a property that is not a list, a
 *  position out of range, invalid UTF-8, a link to an object that does not
 *  exist or was deleted, or, in a list of mixed values, to a class the schema
 *  does not have); #LAR_ETYPE (an element of the wrong type or a link
 *  to another class, null in a list that is not optional); #LAR_EDELETED (the
 *  owner does not exist); #LAR_EMISUSE (ended transaction, a change in a read
 *  transaction or a failed one); #LAR_ECORRUPT (damaged storage); and, for
 *  changes, #LAR_EMAPFULL and #LAR_EIO. On error nothing is changed.
 *  @{
 */
/** @brief Count a list's elements, in O(1).
 * @param[in]  txn   An active transaction.
 * @param[in]  obj   The list's owner.
 * @param[in]  prop  A list property of obj's class.
 * @param[out] out   Receives the count.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out);

/** @brief Read the element at a position.
 *
 * Ownership: as lar_obj_get(): a string or binary is borrowed and valid
 * until the transaction ends.
 * @param[in]  txn    An active transaction.
 * @param[in]  obj    The list's owner.
 * @param[in]  prop   A list property.
 * @param[in]  index  A position below the count.
 * @param[out] out    Receives the element.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_get(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index, lar_value *out);

/** @brief Read up to capacity elements from position start on, in one call.
 *
 * The fast way to read a list: each chunk of the list is found once.
 * Ownership: as lar_list_get(); out stays the caller's, with room for capacity values.
 * @param[in]  txn       An active transaction.
 * @param[in]  obj       The list's owner.
 * @param[in]  prop      A list property.
 * @param[in]  start     The first position to read.
 * @param[out] out       Receives the elements.
 * @param[in]  capacity  The most elements to read; at least 1.
 * @param[out] count     Receives how many were read, on every return.
 * @return #LAR_OK with *count from 1 to capacity (fewer only at the end);
 *         #LAR_ENOTFOUND with *count 0 when start is at or past the end (the
 *         last error is not set); otherwise an error of the group (#LAR_EINVAL
 *         also for capacity 0), after filling the first *count elements.
 */
int lar_list_get_batch(lar_txn *txn, lar_obj obj, uint32_t prop, size_t start, lar_value *out,
                       size_t capacity, size_t *count);

/** @brief Insert an element before position index (the count appends).
 * @param[in] txn    An active write transaction.
 * @param[in] obj    The list's owner.
 * @param[in] prop   A list property.
 * @param[in] index  A position up to the count.
 * @param[in] value  The element; copied. An int is accepted for float and double lists.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_insert(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index, const lar_value *value);

/** @brief Append an element.
 * @return As lar_list_insert() at the count.
 */
int lar_list_append(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value);

/** @brief Replace the element at a position.
 * @param[in] txn    An active write transaction.
 * @param[in] obj    The list's owner.
 * @param[in] prop   A list property.
 * @param[in] index  A position below the count.
 * @param[in] value  The new element; copied.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_set(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index, const lar_value *value);

/** @brief Remove the element at a position; the later ones move down.
 * @param[in] txn    An active write transaction.
 * @param[in] obj    The list's owner.
 * @param[in] prop   A list property.
 * @param[in] index  A position below the count.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_remove(lar_txn *txn, lar_obj obj, uint32_t prop, size_t index);

/** @brief Move the element at from so that it ends at position to (Realm's move(from:to:)).
 * @param[in] txn   An active write transaction.
 * @param[in] obj   The list's owner.
 * @param[in] prop  A list property.
 * @param[in] from  A position below the count.
 * @param[in] to    A position below the count.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_move(lar_txn *txn, lar_obj obj, uint32_t prop, size_t from, size_t to);

/** @brief Exchange the elements at two positions.
 * @param[in] txn     An active write transaction.
 * @param[in] obj     The list's owner.
 * @param[in] prop    A list property.
 * @param[in] first   A position below the count.
 * @param[in] second  A position below the count.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_swap(lar_txn *txn, lar_obj obj, uint32_t prop, size_t first, size_t second);

/** @brief Remove every element (also done by lar_obj_set() with null).
 * @param[in] txn   An active write transaction.
 * @param[in] obj   The list's owner.
 * @param[in] prop  A list property.
 * @return #LAR_OK, or an error of the group.
 */
int lar_list_clear(lar_txn *txn, lar_obj obj, uint32_t prop);
/** @} */

/** @defgroup sets Sets
 *  The elements of a set property (#LAR_COLLECTION_SET): distinct values of the
 *  property's type (null among them when it is #LAR_PROP_OPTIONAL), or
 *  distinct objects of its target class. Insert, remove and contains cost
 *  O(log n). Elements are iterated in a fixed order: ascending for numbers,
 *  timestamps and links (by key), bytewise for strings and binaries, null
 *  first. -0.0 and 0.0 are one element, and so are all NaNs. A string or
 *  binary element holds at most #LAR_SET_ELEMENT_MAX bytes. A set of objects
 *  keeps the backlink index; deleting an object takes it out of every set.
 *  A set of mixed values (#LAR_TYPE_MIXED) follows Realm's Set<Mixed>: its
 *  elements are unique and ordered by kind first (null, bool, numbers,
 *  strings, binaries, timestamps, ObjectIds, UUIDs, links by class then key),
 *  and ints, floats, doubles and decimal128s compare by exact numeric value:
 *  int 1, float 1.0, double 1.0 and decimal128 1 are one element, which reads
 *  back with the type it was first inserted with (lookups and removals with any
 *  of them find it); decimal128 0.1 is not double 0.1, whose exact value is
 *  0.1000000000000000055511151231257827... Strings and binaries are distinct kinds (Realm 20's queries no longer treat them as
 *  equal). A set of mixed values holds
 *  scalars and links to objects of any class (in the backlink index), never a
 *  nested list or dictionary (#LAR_EINVAL); its strings and binaries too hold
 *  at most #LAR_SET_ELEMENT_MAX bytes. A union adds the other set's elements
 *  with their types; an element both sets hold keeps its type in the set
 *  changed.
 *  The functions share these errors: #LAR_EINVAL (NULL argument, unknown
 *  class, property index out of range, a property that is not a set, invalid
 *  UTF-8, an element too long, a link to an object that does not exist or was
 *  deleted or, in a set of mixed values, to a class the schema does not have,
 *  two sets of different element types); #LAR_ETYPE (an element of
 *  the wrong type or a link to another class, null in a set that is not
 *  optional); #LAR_EDELETED (the owner does not exist); #LAR_EMISUSE (ended
 *  transaction, a change in a read transaction or a failed one);
 *  #LAR_ECORRUPT; and, for changes, #LAR_EMAPFULL and #LAR_EIO. On error
 *  nothing is changed.
 *  @{
 */
/** The longest string or binary a set holds, in bytes. */
#define LAR_SET_ELEMENT_MAX 470

/** @brief Count a set's elements, in O(log n).
 * @param[in]  txn   An active transaction.
 * @param[in]  obj   The set's owner.
 * @param[in]  prop  A set property of obj's class.
 * @param[out] out   Receives the count.
 * @return #LAR_OK, or an error of the group.
 */
int lar_set_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out);

/** @brief Tell whether a set holds a value.
 * @param[in]  txn    An active transaction.
 * @param[in]  obj    The set's owner.
 * @param[in]  prop   A set property.
 * @param[in]  value  The value looked for (a link to a deleted object is in no set).
 * @param[out] out    Receives 1 if the set holds it, else 0.
 * @return #LAR_OK, or an error of the group.
 */
int lar_set_contains(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *out);

/** @brief Add a value to a set, unless it holds it already.
 * @param[in]  txn       An active write transaction.
 * @param[in]  obj       The set's owner.
 * @param[in]  prop      A set property.
 * @param[in]  value     The value; copied. An int is accepted for float and double sets.
 * @param[out] inserted  Receives 1 if it was added, 0 if it was there; may be NULL.
 * @return #LAR_OK, or an error of the group.
 */
int lar_set_insert(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *inserted);

/** @brief Take a value out of a set, if it holds it.
 * @param[in]  txn      An active write transaction.
 * @param[in]  obj      The set's owner.
 * @param[in]  prop     A set property.
 * @param[in]  value    The value.
 * @param[out] removed  Receives 1 if it was removed, 0 if it was not there; may be NULL.
 * @return #LAR_OK, or an error of the group.
 */
int lar_set_remove(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *value, int *removed);

/** @brief Remove every element (also done by lar_obj_set() with null).
 * @return #LAR_OK, or an error of the group.
 */
int lar_set_clear(lar_txn *txn, lar_obj obj, uint32_t prop);

/** @brief Read up to capacity elements in the set's order, from the first one after `after`.
 *
 * To read a whole set, pass NULL, then the last element received, until
 * #LAR_ENOTFOUND. Ownership: as lar_obj_get(); out stays the caller's, with
 * room for capacity values.
 * @param[in]  txn       An active transaction.
 * @param[in]  obj       The set's owner.
 * @param[in]  prop      A set property.
 * @param[in]  after     Start after this value (which need not be in the set), or NULL for the first.
 * @param[out] out       Receives the elements.
 * @param[in]  capacity  The most elements to read; at least 1.
 * @param[out] count     Receives how many were read, on every return.
 * @return #LAR_OK with *count from 1 to capacity; #LAR_ENOTFOUND with *count
 *         0 when none is left (the last error is not set); otherwise an error
 *         of the group (#LAR_EINVAL also for capacity 0).
 */
int lar_set_list(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_value *after, lar_value *out,
                 size_t capacity, size_t *count);

/** @brief Add to obj's set every element of other's (Realm's formUnion).
 *
 * The two sets may belong to any objects of the file, and must hold elements
 * of one type (and target class), both optional or both not. The set algebra
 * walks both sets once, in order: O((n + m) log n) at most.
 * @param[in] txn         An active write transaction.
 * @param[in] obj         The owner of the set that changes.
 * @param[in] prop        Its set property.
 * @param[in] other       The owner of the other set, which is only read.
 * @param[in] other_prop  Its set property.
 * @return #LAR_OK, or an error of the group.
 */
int lar_set_union(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop);

/** @brief Keep in obj's set only the elements other's holds too (formIntersection).
 * @return As lar_set_union().
 */
int lar_set_intersect(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop);

/** @brief Take out of obj's set every element of other's (subtract).
 * @return As lar_set_union().
 */
int lar_set_subtract(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop);

/** @brief Tell whether every element of obj's set is in other's (isSubset(of:)).
 * @param[in]  txn  An active transaction.
 * @param[out] out  Receives 1 or 0.
 * @return As lar_set_union(), in any transaction.
 */
int lar_set_is_subset(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int *out);

/** @brief Tell whether the two sets have an element in common (intersects(_:)).
 * @param[in]  txn  An active transaction.
 * @param[out] out  Receives 1 or 0.
 * @return As lar_set_union(), in any transaction.
 */
int lar_set_intersects(lar_txn *txn, lar_obj obj, uint32_t prop, lar_obj other, uint32_t other_prop, int *out);
/** @} */

/** @defgroup maps Maps
 *  The entries of a map property (#LAR_COLLECTION_MAP, Realm's Map<String, V>):
 *  string keys, each with a value of the property's type (null among them
 *  when it is #LAR_PROP_OPTIONAL, which maps of objects always are). Get, put
 *  and remove cost O(log n); entries are listed in bytewise key order. A key
 *  is valid UTF-8 of at most #LAR_MAP_KEY_MAX bytes, does not start with '$'
 *  and holds no '.' (Realm's rules). A map of objects keeps the backlink
 *  index; deleting an object leaves the keys that held it with null. A map of
 *  mixed values (#LAR_TYPE_MIXED, Realm's Map<String, AnyRealmValue>) holds
 *  null, any scalar with its own type, or links to objects of any class, with
 *  the same backlinks and the same null left by a delete, and nested lists and
 *  dictionaries (see @ref nested).
 *  The functions share these errors: #LAR_EINVAL (NULL argument, unknown
 *  class, property index out of range, a property that is not a map, a key
 *  that breaks the rules above (the message says which), invalid UTF-8, a
 *  link to an object that does not exist or was deleted or, in a map of mixed
 *  values, to a class the schema does not have); #LAR_ETYPE (a value
 *  of the wrong type or a link to another class, null in a map that is not
 *  optional); #LAR_EDELETED (the owner does not exist); #LAR_EMISUSE (ended
 *  transaction, a change in a read transaction or a failed one);
 *  #LAR_ECORRUPT; and, for changes, #LAR_EMAPFULL and #LAR_EIO. On error
 *  nothing is changed.
 *  @{
 */
/** The longest map key, in bytes. */
#define LAR_MAP_KEY_MAX 470

/** @brief Count a map's entries, in O(log n).
 * @param[in]  txn   An active transaction.
 * @param[in]  obj   The map's owner.
 * @param[in]  prop  A map property of obj's class.
 * @param[out] out   Receives the count.
 * @return #LAR_OK, or an error of the group.
 */
int lar_map_count(lar_txn *txn, lar_obj obj, uint32_t prop, size_t *out);

/** @brief Read the value of a key.
 *
 * Ownership: as lar_obj_get().
 * @param[in]  txn   An active transaction.
 * @param[in]  obj   The map's owner.
 * @param[in]  prop  A map property.
 * @param[in]  key   The key.
 * @param[out] out   Receives the value (#LAR_TYPE_NULL for a null value).
 * @return #LAR_OK, #LAR_ENOTFOUND (no such key; the last error says so), or an error of the group.
 */
int lar_map_get(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *key, lar_value *out);

/** @brief Set the value of a key, adding the key if it is new.
 * @param[in] txn    An active write transaction.
 * @param[in] obj    The map's owner.
 * @param[in] prop   A map property.
 * @param[in] key    The key; copied.
 * @param[in] value  The value; copied. An int is accepted for float and double maps.
 * @return #LAR_OK, or an error of the group.
 */
int lar_map_put(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *key, const lar_value *value);

/** @brief Remove a key and its value, if the map has it.
 * @param[in]  txn      An active write transaction.
 * @param[in]  obj      The map's owner.
 * @param[in]  prop     A map property.
 * @param[in]  key      The key.
 * @param[out] removed  Receives 1 if it was removed, 0 if the map had no such key; may be NULL.
 * @return #LAR_OK, or an error of the group.
 */
int lar_map_remove(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *key, int *removed);

/** @brief Remove every entry (also done by lar_obj_set() with null).
 * @return #LAR_OK, or an error of the group.
 */
int lar_map_clear(lar_txn *txn, lar_obj obj, uint32_t prop);

/** @brief Read up to capacity entries in key order, from the first key after `after`.
 *
 * To read a whole map, pass NULL, then the last key received, until
 * #LAR_ENOTFOUND. Ownership: keys and values are borrowed as with
 * lar_obj_get() (keys are followed by a NUL byte); the arrays stay the
 * caller's, with room for capacity entries.
 * @param[in]  txn       An active transaction.
 * @param[in]  obj       The map's owner.
 * @param[in]  prop      A map property.
 * @param[in]  after     Start after this key (which need not be in the map), or NULL for the first.
 * @param[out] keys      Receives the keys.
 * @param[out] values    Receives the values, or NULL to read only keys.
 * @param[in]  capacity  The most entries to read; at least 1.
 * @param[out] count     Receives how many were read, on every return.
 * @return #LAR_OK with *count from 1 to capacity; #LAR_ENOTFOUND with *count
 *         0 when none is left (the last error is not set); otherwise an error
 *         of the group (#LAR_EINVAL also for NULL keys or count, capacity 0).
 */
int lar_map_list(lar_txn *txn, lar_obj obj, uint32_t prop, const lar_string *after, lar_string *keys,
                 lar_value *values, size_t capacity, size_t *count);
/** @} */

/** @defgroup nested Nested collections and collection handles
 *  A mixed value (a mixed property, an element of a list of mixed values, a
 *  value of a map of mixed values, or an element of a nested collection) may
 *  hold a nested list of mixed values or a nested dictionary (string keys, as
 *  maps take them, and mixed values), nested up to #LAR_NESTED_MAX_DEPTH
 *  levels: a collection held by a property or by an element of a property's
 *  own list or map is at level 1, one held by an element of a level-n
 *  collection at level n + 1. Sets of mixed values hold no nested
 *  collections (#LAR_EINVAL).
 *
 *  A nested collection is written into a slot by writing a value of type
 *  #LAR_TYPE_LIST or #LAR_TYPE_DICTIONARY (lar_obj_set(), lar_obj_create(),
 *  lar_list_insert(), lar_list_set(), lar_map_put() and their `_at` forms):
 *  the slot then holds a new, empty one. It belongs to its slot: writing
 *  another value into the slot, removing the element or key that holds it,
 *  clearing the collection that holds it, and deleting the object that owns
 *  the property free it and everything nested in it. Links inside nested
 *  collections are in the backlink index under the owning object and its
 *  property; deleting a linked object removes it from nested lists and
 *  leaves null in nested dictionaries. Such a delete walks the whole nested
 *  tree of each property that links to the object: its cost grows with the
 *  size of those trees (top-level lists and maps cost the same as before).
 *
 *  Nested collections are read and changed through the `_at` forms of the
 *  list and map functions, which take a handle (#lar_coll). A handle is plain
 *  data: it stays valid to hold after its transaction ends. A handle whose
 *  nested collection was replaced or freed, or whose owner was deleted, is
 *  stale: every function reports #LAR_EDELETED for it and reads nothing
 *  (ids are never reused). The `_at` functions have the errors of their
 *  groups, #LAR_EDELETED for a stale handle, #LAR_EINVAL for a NULL handle
 *  and, when writing a nested collection, #LAR_EINVAL for one that would
 *  sit deeper than #LAR_NESTED_MAX_DEPTH levels or in a set, and
 *  #LAR_ENOTSUP for a new one in a file written before mixed values could
 *  nest whose schema has no list, set or map property (it has no table for
 *  them; lar_obj_set() and lar_obj_create() report the same). On error
 *  nothing is changed. A handle with id 0 names the property's own list or
 *  map, and its `_at` calls do exactly what the plain functions do.
 *  @{
 */
/** The deepest level a nested collection may sit at (Realm's limit). */
#define LAR_NESTED_MAX_DEPTH 100

/** A handle on a list or a dictionary: a list or map property, or a nested
 *  collection inside one of the property's mixed values. Plain data. */
typedef struct lar_coll {
    lar_obj obj;          /**< The object that owns the property. */
    uint32_t prop;        /**< The property (a list, a map, or a mixed value). */
    lar_collection kind;  /**< #LAR_COLLECTION_LIST or #LAR_COLLECTION_MAP. */
    uint64_t id;          /**< 0: the property's own list or map; otherwise a nested collection's id. */
} lar_coll;

/** @brief Get a handle on a property's collection.
 *
 * For a list or map property, the handle names it (id 0, kind as the property's).
 * For a mixed property, the handle names the nested list or dictionary it
 * holds; it is #LAR_ETYPE when it holds anything else.
 * @param[in]  txn   An active transaction.
 * @param[in]  obj   The owner.
 * @param[in]  prop  A list, map or mixed property of obj's class.
 * @param[out] out   Receives the handle.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, unknown class, property out
 *         of range, a set or single-value property that is not mixed);
 *         #LAR_ETYPE (a mixed property without a nested collection);
 *         #LAR_EDELETED (no such object); #LAR_EMISUSE; #LAR_ECORRUPT.
 */
int lar_coll_open(lar_txn *txn, lar_obj obj, uint32_t prop, lar_coll *out);

/** @brief Get a handle on a nested collection read from a collection.
 *
 * Pure: it checks nothing in the database (the handle's first use does).
 * @param[in]  parent  The handle the value was read through (lar_list_get_at(), lar_map_get_at(), ...).
 * @param[in]  value   A value of type #LAR_TYPE_LIST or #LAR_TYPE_DICTIONARY read through parent.
 * @param[out] out     Receives the handle (same owner and property as parent).
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument), #LAR_ETYPE (value is not a nested collection).
 */
int lar_coll_child(const lar_coll *parent, const lar_value *value, lar_coll *out);

/** @brief Count a list's elements; lar_list_count() on a handle. */
int lar_list_count_at(lar_txn *txn, const lar_coll *list, size_t *out);
/** @brief Read an element; lar_list_get() on a handle. Ownership: as lar_obj_get(). */
int lar_list_get_at(lar_txn *txn, const lar_coll *list, size_t index, lar_value *out);
/** @brief Read consecutive elements; lar_list_get_batch() on a handle (its returns and ownership). */
int lar_list_get_batch_at(lar_txn *txn, const lar_coll *list, size_t start, lar_value *out, size_t capacity,
                          size_t *count);
/** @brief Insert an element; lar_list_insert() on a handle. value is copied; a
 *  #LAR_TYPE_LIST or #LAR_TYPE_DICTIONARY value inserts a new empty nested collection. */
int lar_list_insert_at(lar_txn *txn, const lar_coll *list, size_t index, const lar_value *value);
/** @brief Append an element; lar_list_append() on a handle. */
int lar_list_append_at(lar_txn *txn, const lar_coll *list, const lar_value *value);
/** @brief Replace an element; lar_list_set() on a handle. A nested collection the
 *  element held is freed. */
int lar_list_set_at(lar_txn *txn, const lar_coll *list, size_t index, const lar_value *value);
/** @brief Remove an element; lar_list_remove() on a handle. A nested collection the
 *  element held is freed. */
int lar_list_remove_at(lar_txn *txn, const lar_coll *list, size_t index);
/** @brief Move an element; lar_list_move() on a handle (a nested collection moves with it). */
int lar_list_move_at(lar_txn *txn, const lar_coll *list, size_t from, size_t to);
/** @brief Remove every element; lar_list_clear() on a handle. Nested collections are freed. */
int lar_list_clear_at(lar_txn *txn, const lar_coll *list);

/** @brief Count a map's or dictionary's entries; lar_map_count() on a handle. */
int lar_map_count_at(lar_txn *txn, const lar_coll *map, size_t *out);
/** @brief Read a key's value; lar_map_get() on a handle (its returns and ownership). */
int lar_map_get_at(lar_txn *txn, const lar_coll *map, const lar_string *key, lar_value *out);
/** @brief Set a key's value; lar_map_put() on a handle. A nested collection the key
 *  held is freed; a #LAR_TYPE_LIST or #LAR_TYPE_DICTIONARY value puts a new empty one. */
int lar_map_put_at(lar_txn *txn, const lar_coll *map, const lar_string *key, const lar_value *value);
/** @brief Remove a key; lar_map_remove() on a handle. A nested collection it held is freed. */
int lar_map_remove_at(lar_txn *txn, const lar_coll *map, const lar_string *key, int *removed);
/** @brief Read entries in key order; lar_map_list() on a handle (its returns and ownership). */
int lar_map_list_at(lar_txn *txn, const lar_coll *map, const lar_string *after, lar_string *keys,
                    lar_value *values, size_t capacity, size_t *count);
/** @brief Remove every entry; lar_map_clear() on a handle. Nested collections are freed. */
int lar_map_clear_at(lar_txn *txn, const lar_coll *map);
/** @} */

/** @defgroup iter Iteration
 *  @{
 */
/** An iterator over the objects of a class, in key order (creation order, or, for a
 *  class whose primary key is an int, primary-key order: see lar_obj_stamp()), or over
 *  those of a query's result (lar_iter_open_results()), in result order. */
typedef struct lar_iter lar_iter;

/** @brief Open an iterator over a class.
 *
 * Objects deleted during iteration are skipped; objects created during a
 * write transaction's iteration are visited when their key comes after the
 * iterator's position (always, unless the class's primary key is an int).
 * Ownership: the caller owns *out and releases it with lar_iter_close(),
 * also after the transaction ends (the iterator then returns #LAR_EMISUSE).
 * @param[in]  txn  An active transaction.
 * @param[in]  cls  The class.
 * @param[out] out  Receives the iterator.
 * @return #LAR_OK, or #LAR_EINVAL, #LAR_EMISUSE, #LAR_ENOMEM, #LAR_EIO.
 */
int lar_iter_open(lar_txn *txn, lar_class cls, lar_iter **out);

/** @brief Step to the next object.
 *
 * Also fills the variables bound with lar_iter_bind_int() and its siblings.
 * @param[in]  iter  An iterator.
 * @param[out] out   Receives the object.
 * @return #LAR_OK, or: #LAR_ENOTFOUND at the end (the last error is not set);
 *         #LAR_EINVAL (NULL argument); #LAR_EMISUSE (its transaction ended); #LAR_EIO;
 *         with bindings, #LAR_ECORRUPT (a damaged row) or #LAR_ENOMEM (copying a
 *         bound string in a write transaction).
 */
int lar_iter_next(lar_iter *iter, lar_obj *out);

/** @brief Step to the next object and read all its properties as tagged values.
 *
 * The same as lar_iter_next() followed by lar_obj_get_all(), in one call.
 * Ownership: as lar_obj_get().
 * @param[in]  iter    An iterator.
 * @param[out] out     Receives the object.
 * @param[out] values  Receives count values in property-index order.
 * @param[in]  count   The class's property count.
 * @return As lar_iter_next() (#LAR_ENOTFOUND at the end, without setting the
 *         last error); #LAR_EINVAL also when values is NULL or count is not
 *         the property count; #LAR_ECORRUPT.
 */
int lar_iter_next_all(lar_iter *iter, lar_obj *out, lar_value *values, size_t count);

/** @brief Make each later lar_iter_next_all() also read the embedded object that a
 *  to-one link of the object stepped to holds.
 *
 * After each successful lar_iter_next_all(), out holds the values of the embedded
 * object that property prop links to (as lar_obj_get_all() reads them) and *key its
 * key; when the link is null, *key is 0 and out keeps what it held. A walk over owners
 * that reads each one's embedded object (a person's address) then makes one call per
 * object: the embedded objects of owners created in order lie in order, so each is
 * one step on from the last (in a read, read in place on its leaf page); any other key
 * is sought. lar_iter_next() and lar_iter_next_batch() do not read it. Following
 * again replaces the property and the destinations.
 * Ownership: as lar_obj_get_all() for the values read; out and key stay the caller's
 * and must remain valid while followed.
 * @param[in]  iter   An iterator.
 * @param[in]  prop   A to-one link property (its index) of the iterator's class, whose
 *                    target class is embedded.
 * @param[out] out    Receives count values in property-index order, or NULL to stop
 *                    following (prop, count and key are then not looked at).
 * @param[in]  count  The embedded class's property count.
 * @param[out] key    Receives the embedded object's key, 0 for none.
 * @return #LAR_OK, or: #LAR_EINVAL (iter or key NULL, prop out of range or not a to-one
 *         link to an embedded class, count not its property count); #LAR_EMISUSE (its
 *         transaction ended). A later lar_iter_next_all() returns #LAR_ECORRUPT when the
 *         embedded object is missing or damaged (out may then be partly written).
 */
int lar_iter_follow(lar_iter *iter, uint32_t prop, lar_value *out, size_t count, lar_objkey *key);

/** @brief Step to up to capacity objects in one call, filling a row of bound
 *  variables for each.
 *
 * Row-wise binding, as ODBC's block cursors: bind the variables of row 0 (say
 * the fields of the first struct in an array), and row i's variables lie
 * i * stride bytes after them. The fastest way to read a class: one call per
 * batch instead of one per object. In a read transaction each object then
 * costs little more than LMDB's own cursor step.
 * Ownership: as lar_iter_next(). objs and the bound variables stay the
 * caller's; both must have room for capacity rows.
 * @param[in]  iter      An iterator.
 * @param[out] objs      Receives the objects, or NULL when the caller needs
 *                       only the bound values.
 * @param[in]  capacity  The most objects to step to; at least 1.
 * @param[in]  stride    Bytes from one row's variables to the next's (the
 *                       struct's size); unused when capacity is 1.
 * @param[out] count     Receives how many objects were stepped to and filled,
 *                       on every return.
 * @return #LAR_OK with *count from 1 to capacity (fewer than capacity only at
 *         the end of the walk); #LAR_ENOTFOUND with *count 0 when no object is
 *         left (the last error is not set). On any other error, the first
 *         *count rows were filled before it: #LAR_EINVAL (iter or count NULL,
 *         capacity 0); #LAR_EMISUSE (its transaction ended); #LAR_EIO;
 *         #LAR_ECORRUPT (a damaged row); #LAR_ENOMEM (copying a bound string
 *         in a write transaction).
 */
int lar_iter_next_batch(lar_iter *iter, lar_obj *objs, size_t capacity, size_t stride, size_t *count);

/** @brief Bind a required int property to a variable that every step fills.
 *
 * After each successful lar_iter_next() or lar_iter_next_all(), *dest holds
 * the property's value in the object stepped to; at the end of the walk or on
 * an error it keeps its last value. lar_iter_next_batch() fills one such
 * variable per object, at dest plus a stride. Scans that read a few numbers
 * from every object get them without the tagged lar_value to write and check.
 * Binding a property again replaces its destination.
 * Ownership: dest stays the caller's; it must remain valid while bound.
 * @param[in] iter  An iterator.
 * @param[in] prop  A property index of the iterator's class.
 * @param[in] dest  The variable to fill, or NULL to remove the binding.
 * @return #LAR_OK, or: #LAR_EINVAL (iter NULL, prop out of range);
 *         #LAR_ETYPE (the property is not a required, non-collection int);
 *         #LAR_EMISUSE (its transaction ended); #LAR_ENOMEM.
 *         A step that finds a bound row corrupt returns #LAR_ECORRUPT.
 */
int lar_iter_bind_int(lar_iter *iter, uint32_t prop, int64_t *dest);

/** @brief Bind a required double property to a variable that every step fills.
 *
 * As lar_iter_bind_int(), for a double property.
 * @return As lar_iter_bind_int(); #LAR_ETYPE when the property is not a
 *         required, non-collection double.
 */
int lar_iter_bind_double(lar_iter *iter, uint32_t prop, double *dest);

/** @brief Bind a property of any type to a lar_value that every step fills.
 *
 * As lar_iter_bind_int(), for any property: *dest receives what
 * lar_obj_get() would return (#LAR_TYPE_NULL for a null optional).
 * Ownership: as lar_obj_get(): a string or binary read is borrowed and valid
 * until the transaction ends.
 * @return As lar_iter_bind_int(), without #LAR_ETYPE.
 */
int lar_iter_bind_value(lar_iter *iter, uint32_t prop, lar_value *dest);

/** @brief Bind a variable that every step fills with the stamp of the object
 *  stepped to (see lar_obj_stamp()).
 *
 * As lar_iter_bind_int() (lar_iter_next_batch() fills one per object, at dest
 * plus a stride), without a property: a holder of the objects an iterator
 * returns reads their stamps without a call per object. Objects of a class
 * whose primary key is not an int have the stamp 0.
 * Ownership: dest stays the caller's; it must remain valid while bound.
 * @param[in] iter  An iterator.
 * @param[in] dest  The variable to fill, or NULL to remove the binding.
 * @return #LAR_OK, or: #LAR_EINVAL (iter NULL); #LAR_EMISUSE (its transaction ended).
 */
int lar_iter_bind_stamp(lar_iter *iter, uint64_t *dest);

/** @brief Move an iterator so that its next step returns the first object
 *  whose key is at least key.
 *
 * Lets a caller resume a walk in a new transaction at the object where an
 * earlier iterator stopped (pass the last key seen plus one).
 * @param[in] iter  An iterator.
 * @param[in] key   The smallest key to return next; 0 restarts from the first object.
 * @return #LAR_OK, or #LAR_EINVAL (NULL), #LAR_EMISUSE (its transaction ended).
 */
int lar_iter_seek(lar_iter *iter, lar_objkey key);

/** @brief Close an iterator.
 * @param[in] iter  An iterator, or NULL.
 */
void lar_iter_close(lar_iter *iter);
/** @} */

/** @defgroup query Queries: parsing
 *  Realm's query language (the string Realm Swift's `filter(_:_:)` takes),
 *  parsed and checked against a class's schema; this section parses, binds
 *  arguments and describes, and @ref results runs a query.
 *
 *  Grammar (keywords are case-insensitive):
 *  - comparisons `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`; `BETWEEN {a, b}`;
 *    `IN {a, b, ...}` and `IN %@` (a list argument); string operators `BEGINSWITH`,
 *    `ENDSWITH`, `CONTAINS`, `LIKE` (`*`, `?`), and `==`/`!=`, each with the
 *    options `[c]`, `[d]` or `[cd]`;
 *  - `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`;
 *  - key paths through links (`owner.address.city`), backlinks
 *    (`@links.Person.dogs`; `@links.@count` counts the links from every class
 *    and property), maps (`map['key']`, `map.@keys`, `map.@values`),
 *    `@type` of a mixed value (compared with type names: 'int', 'string', 'numeric', ...),
 *    `ANY`/`SOME`, `ALL`, `NONE` before a comparison over a collection,
 *    `@count`/`@size` (also a string's or binary's length), `@min`, `@max`,
 *    `@sum`, `@avg` at the end of a key path, and
 *    `SUBQUERY(collection, $x, predicate).@count`;
 *  - literals: integers (decimal, `0x` hex, negative), floats (exponents, `inf`,
 *    `-inf`, `nan`; an `f` suffix makes a float), strings in single or double
 *    quotes with the escapes `\\`, `\"`, `\'`, `\/`, `\0`, `\b`, `\f`, `\n`,
 *    `\r`, `\t`, `\uXXXX`, `true`/`false`, `nil`/`NULL`, timestamps
 *    `T<seconds>:<nanoseconds>` and `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (UTC;
 *    `T` may replace `@`), `oid(<24 hex digits>)`, `uuid(<8-4-4-4-12 hex
 *    digits>)`, base64 binary `B64"..."`; a number compared with a decimal128
 *    property is read as a decimal128 from its text, exactly, as realm-core does,
 *    and `decimal128(<number>)` (up to 34 significant digits, `inf`, `nan`;
 *    Larder's spelling, which realm-core does not read) writes one anywhere;
 *  - arguments: `%@` and `%K` take the next argument in order (NSPredicate's
 *    way, what Realm Swift passes; `%K` is a key path given as a string), or
 *    `$0` ... `$n` name one by index; a query uses one style or the other;
 *  - suffixes, in any order and repeatable: `SORT(key ASC|DESC, ...)`,
 *    `DISTINCT(key, ...)`, `LIMIT(n)`.
 *
 *  Errors: parse and bind fail with #LAR_EINVAL and a message that names the
 *  problem and its 1-based column, counted in characters of the query text
 *  ("unknown property 'agee' on class 'Dog' at column 1", "cannot compare
 *  string property 'name' with int 3 at column 1", "unterminated string at
 *  column 12"). Nesting deeper than 200 levels is refused.
 *  @{
 */
/** A parsed query: its AST, resolved against one class, and its arguments. */
typedef struct lar_query lar_query;

/** @brief Parse a query on a class.
 *
 * The text is parsed, then its key paths are resolved against the schema and
 * every comparison is type-checked. A query with `%K` arguments is resolved
 * (and errors in its key paths found) when they are bound by lar_query_bind().
 * A query with arguments is complete, ready to run, once each is bound.
 * Ownership: the caller owns *out and releases it with lar_query_free(). The
 * text is copied. The query refers to env, which must stay open while it lives.
 * @param[in]  env   An open environment.
 * @param[in]  cls   The class the query selects objects of.
 * @param[in]  text  The query, UTF-8, NUL-terminated.
 * @param[out] out   Receives the query; set to NULL on failure.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class, invalid UTF-8,
 *         a syntax error, an unknown class or property, a type mismatch: the
 *         message names it and its column), #LAR_ENOMEM.
 */
int lar_query_parse(lar_env *env, lar_class cls, const char *text, lar_query **out);

/** @brief Return the number of arguments a query takes: the highest `$n` plus
 *  one, or the number of `%@` and `%K`.
 * @param[in]  query  A query.
 * @param[out] out    Receives the count.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument).
 */
int lar_query_argument_count(const lar_query *query, size_t *out);

/** The kinds of lar_query_arg. */
typedef enum lar_query_arg_kind {
    LAR_QUERY_ARG_VALUE = 1,   /**< `value`: for `%@` or `$n` (an object: #LAR_TYPE_LINK). */
    LAR_QUERY_ARG_LIST = 2,    /**< `list` of `list_count` values: for `IN %@`, `BETWEEN %@`
                                    (two values), or a comparison with ANY of them. */
    LAR_QUERY_ARG_KEYPATH = 3  /**< `keypath`, a key path as text: for `%K`. */
} lar_query_arg_kind;

/** An argument of a query. */
typedef struct lar_query_arg {
    lar_query_arg_kind kind;
    lar_value value;           /**< #LAR_QUERY_ARG_VALUE. */
    const lar_value *list;     /**< #LAR_QUERY_ARG_LIST; may be NULL when list_count is 0. */
    size_t list_count;
    const char *keypath;       /**< #LAR_QUERY_ARG_KEYPATH, NUL-terminated UTF-8. */
} lar_query_arg;

/** @brief Bind every argument of a query.
 *
 * args[i] is argument i (`$i`, or the i-th `%@`/`%K`). Each is checked where the
 * query uses it, as a literal there would be (the message names the argument:
 * "cannot compare int property 'age' with string "x" (argument 0) at column 7");
 * `%K` key paths are resolved. Binding again replaces every argument; single
 * values of the types bound before are swapped in without resolving the query
 * again (unless a check reads the value itself: a link's class, an `@type` name),
 * so a query run once per value (`name == $0`) is cheap to rebind. On failure the
 * query keeps no argument (as if never bound) and may be bound again.
 * Ownership: values, lists and key path strings are copied.
 * @param[in] query  A query.
 * @param[in] args   count arguments; may be NULL when count is 0.
 * @param[in] count  Must equal lar_query_argument_count().
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, a wrong count, a kind that
 *         does not fit where the argument is used, a value of the wrong type,
 *         invalid UTF-8, a bad key path), #LAR_ENOMEM.
 */
int lar_query_bind(lar_query *query, const lar_query_arg *args, size_t count);

/** Describe bound arguments by their values rather than as `$n`. An object
 *  value prints as `obj("Class", key)`, which the parser does not read back. */
#define LAR_QUERY_DESCRIBE_VALUES 0x1u

/** @brief Write the canonical text of a query.
 *
 * The canonical form spells every operator and literal one way (`==`, `!=`,
 * `ANY`, `NULL`, `@count`, double-quoted strings, `T<s>:<ns>` timestamps ...),
 * puts parentheses only where precedence needs them (`NOT` binds tighter than
 * `AND`, `AND` than `OR`; chains of one are flattened), and writes
 * arguments as `$n` (with #LAR_QUERY_DESCRIBE_VALUES, bound ones by value;
 * `%@`/`%K` when a `%K` is still unbound); a bound `%K` appears as its key
 * path. Parsing the canonical text gives the same canonical text again.
 * Example: `age < 2 AND (name ==[c] "rex" OR NOT alive == true) SORT(age ASC) LIMIT(3)`.
 * @param[in]  query   A query.
 * @param[out] buffer  Receives the text, NUL-terminated; may be NULL when size is 0.
 * @param[in]  size    The buffer's size in bytes.
 * @param[out] length  Receives the text's length without its NUL; may be NULL.
 * @param[in]  flags   0 or #LAR_QUERY_DESCRIBE_VALUES.
 * @return #LAR_OK, or #LAR_EINVAL (NULL query; a buffer too small: *length says
 *         what it needs, and the buffer holds as much as fits, NUL-terminated).
 */
int lar_query_describe(const lar_query *query, char *buffer, size_t size, size_t *length,
                       unsigned int flags);

/** @brief Parse a query over plain values: the elements of a list, set or map
 *  of one scalar type (or of mixed values), as Realm filters its collections of
 *  primitives.
 *
 * Each value is named `self`: `self > 5`, `self BEGINSWITH[c] 'a'`, `self IN
 * {1, 2}`, `self.@count > 3` (a string's or binary's length), `self.@type ==
 * 'string'` (a mixed value), `self == nil`. Every operator, option and argument
 * of a query over objects applies; a key path other than `self`, and `SORT`,
 * `DISTINCT` and `LIMIT`, are refused. Test values with
 * lar_query_match_values(); lar_query_run() refuses such a query.
 * Ownership: as lar_query_parse().
 * @param[in]  env       An open environment (for links in mixed values).
 * @param[in]  type      The values' type: a scalar type or #LAR_TYPE_MIXED.
 * @param[in]  optional  Nonzero when null is one of the values (a mixed value
 *                       may always be null).
 * @param[in]  text      The query, UTF-8, NUL-terminated.
 * @param[out] out       Receives the query; set to NULL on failure.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, a type that is not a scalar
 *         nor mixed, the errors of lar_query_parse()), #LAR_ENOMEM.
 */
int lar_query_parse_values(lar_env *env, lar_type type, int optional, const char *text, lar_query **out);

/** @brief Start building a query over plain values (see
 *  lar_query_parse_values() and @ref query_build): its key paths are `self`.
 * @return As lar_query_new(), and #LAR_EINVAL for a type that is not a scalar
 *         nor mixed.
 */
int lar_query_new_values(lar_env *env, lar_type type, int optional, lar_query **out);

/** @brief Test values against a query over values.
 *
 * matches[i] is set to 1 when values[i] matches, else 0. A value must be one
 * the query's type holds: of that type (an int is also accepted for a float or
 * double), null when optional; for mixed values any scalar, a link (whose class
 * must exist; a link to a deleted object reads as null), or a nested list or
 * dictionary (#LAR_TYPE_LIST, #LAR_TYPE_DICTIONARY), matched by its type alone.
 * @param[in]  txn      A transaction of the query's environment, read or write.
 * @param[in]  query    A finished query over values, its arguments bound.
 * @param[in]  values   count values; may be NULL when count is 0.
 * @param[in]  count    The number of values.
 * @param[out] matches  count bytes; may be NULL when count is 0. On failure
 *                      their contents are unspecified.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, a query over objects, not
 *         finished or with an unbound argument, of another environment; a value
 *         of the wrong type: the message names its index), #LAR_ETYPE (a value
 *         of the wrong type), #LAR_EMISUSE (a finished transaction), #LAR_ENOMEM.
 */
int lar_query_match_values(lar_txn *txn, const lar_query *query, const lar_value *values, size_t count,
                           unsigned char *matches);

/** @brief Free a query.
 * @param[in] query  A query, or NULL.
 */
void lar_query_free(lar_query *query);
/** @} */

/** @defgroup query_build Queries: building without text
 *  A query's AST built by calls, as the Swift `where {}` DSL does: nothing is
 *  quoted, so no value can change the query's meaning. The calls work a stack,
 *  as an RPN calculator: key paths, values, lists, arguments and subqueries are
 *  expressions; lar_query_compare() pops two expressions and pushes a
 *  predicate; lar_query_and(), lar_query_or() and lar_query_not() combine
 *  predicates; lar_query_finish() takes the one predicate left and resolves it
 *  against the class with the parser's resolver (the same checks and
 *  messages, which name no column: a built query has no text).
 *
 *  `age < 2 AND name BEGINSWITH[c] "re"`:
 *  @code
 *  lar_query *q;
 *  lar_query_new(env, dog, &q);
 *  lar_query_push_keypath(q, "age");
 *  lar_value two = {.type = LAR_TYPE_INT, .as.integer = 2};
 *  lar_query_push_value(q, &two);
 *  lar_query_compare(q, LAR_QUERY_LT, 0, LAR_QUERY_PLAIN);
 *  lar_query_push_path(q);
 *  lar_query_path_append(q, LAR_QUERY_STEP_PROPERTY, "name", NULL);
 *  lar_value re = {.type = LAR_TYPE_STRING, .as.string = {"re", 2}};
 *  lar_query_push_value(q, &re);
 *  lar_query_compare(q, LAR_QUERY_BEGINSWITH, LAR_QUERY_CASE_INSENSITIVE, LAR_QUERY_PLAIN);
 *  lar_query_and(q, 2);
 *  if (lar_query_finish(q) != LAR_OK) ... lar_error_last()->message ...
 *  lar_query_free(q);
 *  @endcode
 *
 *  Errors stick: once a call fails (#LAR_EINVAL for misuse: a NULL argument,
 *  an enum value out of range, too few items on the stack or items of the
 *  wrong kind, nesting deeper than 200 levels; #LAR_ENOMEM), every later call
 *  on the query, lar_query_finish() included, fails with the same code and
 *  message, and the query can only be freed. Every call but lar_query_free()
 *  fails with #LAR_EINVAL on a query that lar_query_parse() made or that is
 *  finished, and lar_query_describe() and lar_query_bind() fail on one that
 *  is not finished yet.
 *  @{
 */

/** Comparison operators, for lar_query_compare(). */
typedef enum lar_query_op {
    LAR_QUERY_EQ = 0,          /**< `==` */
    LAR_QUERY_NE = 1,          /**< `!=` */
    LAR_QUERY_LT = 2,          /**< `<` */
    LAR_QUERY_LE = 3,          /**< `<=` */
    LAR_QUERY_GT = 4,          /**< `>` */
    LAR_QUERY_GE = 5,          /**< `>=` */
    LAR_QUERY_BEGINSWITH = 6,
    LAR_QUERY_ENDSWITH = 7,
    LAR_QUERY_CONTAINS = 8,
    LAR_QUERY_LIKE = 9,
    LAR_QUERY_IN = 10,         /**< right: a list, a list argument or a collection */
    LAR_QUERY_BETWEEN = 11     /**< right: a list of two values or a list argument */
} lar_query_op;

/** Options of a string comparison (`[c]`, `[d]`, `[cd]`), for lar_query_compare(). */
#define LAR_QUERY_CASE_INSENSITIVE 0x1u
#define LAR_QUERY_DIACRITIC_INSENSITIVE 0x2u

/** The quantifier written before a comparison over a collection. */
typedef enum lar_query_quantifier {
    LAR_QUERY_PLAIN = 0,       /**< none written (a collection compares as ANY) */
    LAR_QUERY_ANY = 1,
    LAR_QUERY_ALL = 2,
    LAR_QUERY_NONE = 3
} lar_query_quantifier;

/** Steps of a key path, for lar_query_path_append(). */
typedef enum lar_query_step {
    LAR_QUERY_STEP_PROPERTY = 0,  /**< `.name` */
    LAR_QUERY_STEP_VARIABLE = 1,  /**< `$name`, a subquery's element: first step only */
    LAR_QUERY_STEP_BACKLINK = 2,  /**< `@links.Class.name`: first step only; with no names,
                                       `@links.@count` (links from any class), which ends the path */
    LAR_QUERY_STEP_KEY = 3,       /**< `['name']`: a map's value (or a mixed dictionary's) */
    LAR_QUERY_STEP_KEYS = 4,      /**< `.@keys` of a map */
    LAR_QUERY_STEP_VALUES = 5,    /**< `.@values` of a map */
    LAR_QUERY_STEP_TYPE = 6       /**< `.@type` of a mixed value */
} lar_query_step;

/** Aggregates that end a key path, for lar_query_path_aggregate(). */
typedef enum lar_query_aggregate {
    LAR_QUERY_COUNT = 1,       /**< `.@count`: also a string's or binary's length */
    LAR_QUERY_MIN = 2,
    LAR_QUERY_MAX = 3,
    LAR_QUERY_SUM = 4,
    LAR_QUERY_AVG = 5
} lar_query_aggregate;

/** @brief Start building a query on a class, with an empty stack.
 * Ownership: the caller owns *out and releases it with lar_query_free(),
 * finished or not. The query refers to env, which must stay open while it lives.
 * @param[in]  env  An open environment.
 * @param[in]  cls  The class the query selects objects of.
 * @param[out] out  Receives the query; set to NULL on failure.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown class), #LAR_ENOMEM.
 */
int lar_query_new(lar_env *env, lar_class cls, lar_query **out);

/** @brief Push a key path written as text (`owner.address.city`, `tags.@count`,
 *  `attrs['k']`, `$x.age`, `@links.Person.dogs`), read by the parser's key path rules.
 * @param[in] query  A query being built.
 * @param[in] text   The key path, UTF-8, NUL-terminated; copied.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; a syntax error, named as by
 *         lar_query_parse()), #LAR_ENOMEM.
 */
int lar_query_push_keypath(lar_query *query, const char *text);

/** @brief Push an empty key path, which lar_query_path_append() extends.
 * @param[in] query  A query being built.
 * @return #LAR_OK, or #LAR_EINVAL (see the group), #LAR_ENOMEM.
 */
int lar_query_push_path(lar_query *query);

/** @brief Append a step to the key path on top of the stack.
 * @param[in] query       A query being built.
 * @param[in] step        The kind of step.
 * @param[in] name        The property (PROPERTY, BACKLINK), the variable without
 *                        its `$` (VARIABLE: letters, digits and `_`, not first a
 *                        digit) or the key (KEY: any UTF-8, empty too); NULL for
 *                        KEYS, VALUES and TYPE. Copied.
 * @param[in] class_name  BACKLINK: the class that links; else NULL. Copied. A
 *                        BACKLINK step with name and class_name both NULL is
 *                        `@links.@count` and ends the key path.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; no key path on top, one that
 *         ends in an aggregate, a VARIABLE or BACKLINK step not first, a missing,
 *         empty or invalid UTF-8 name), #LAR_ENOMEM. Unknown properties are
 *         found by lar_query_finish().
 */
int lar_query_path_append(lar_query *query, lar_query_step step, const char *name, const char *class_name);

/** @brief End the key path on top of the stack with an aggregate (`.@count`, ...).
 * @param[in] query      A query being built.
 * @param[in] aggregate  The aggregate.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; no key path on top, or one
 *         that has an aggregate already).
 */
int lar_query_path_aggregate(lar_query *query, lar_query_aggregate aggregate);

/** @brief Push a value (a literal of the text form; an object: #LAR_TYPE_LINK).
 * @param[in] query  A query being built.
 * @param[in] value  The value: NULL, a scalar or a link; strings and binaries are copied.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; a type that is not a value,
 *         a string that is not UTF-8), #LAR_ENOMEM.
 */
int lar_query_push_value(lar_query *query, const lar_value *value);

/** @brief Push argument `$index`, bound later with lar_query_bind(); the query
 *  takes the highest index pushed plus one arguments.
 * @param[in] query  A query being built.
 * @param[in] index  Below 1024.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; an index too high), #LAR_ENOMEM.
 */
int lar_query_push_argument(lar_query *query, size_t index);

/** @brief Pop count values and arguments and push them as a list `{a, b, ...}`,
 *  in the order they were pushed (for IN and BETWEEN).
 * @param[in] query  A query being built.
 * @param[in] count  How many; 0 pushes an empty list.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; fewer items, or an item that
 *         is not a value or an argument), #LAR_ENOMEM.
 */
int lar_query_push_list(lar_query *query, size_t count);

/** @brief Pop a predicate and, below it, a key path to a collection, and push
 *  `SUBQUERY(path, $variable, predicate).@count` (an int expression).
 * @param[in] query     A query being built.
 * @param[in] variable  The variable the predicate's key paths begin with, without
 *                      its `$` (letters, digits and `_`, not first a digit). Copied.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; the items are not a key path
 *         without aggregate and a predicate, a bad variable), #LAR_ENOMEM.
 */
int lar_query_subquery(lar_query *query, const char *variable);

/** @brief Push `TRUEPREDICATE` (truth non-zero) or `FALSEPREDICATE`.
 * @param[in] query  A query being built.
 * @param[in] truth  Which.
 * @return #LAR_OK, or #LAR_EINVAL (see the group), #LAR_ENOMEM.
 */
int lar_query_push_truth(lar_query *query, int truth);

/** @brief Pop the right expression, then the left one, and push their comparison.
 * @param[in] query       A query being built.
 * @param[in] op          The operator.
 * @param[in] options     0, or LAR_QUERY_CASE_INSENSITIVE and/or
 *                        LAR_QUERY_DIACRITIC_INSENSITIVE (with EQ, NE, IN and the
 *                        string operators only).
 * @param[in] quantifier  #LAR_QUERY_PLAIN, or ANY, ALL, NONE over a collection.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; fewer than two expressions on
 *         top, options where they do not apply), #LAR_ENOMEM. Types are checked
 *         by lar_query_finish().
 */
int lar_query_compare(lar_query *query, lar_query_op op, unsigned int options, lar_query_quantifier quantifier);

/** @brief Pop count predicates and push their conjunction (count 1: unchanged).
 *  Conjunctions inside it are flattened, as the parser flattens `(a AND b) AND c`.
 * @param[in] query  A query being built.
 * @param[in] count  At least 1.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; fewer predicates on top), #LAR_ENOMEM.
 */
int lar_query_and(lar_query *query, size_t count);

/** @brief The same for a disjunction. */
int lar_query_or(lar_query *query, size_t count);

/** @brief Pop a predicate and push its negation.
 * @param[in] query  A query being built.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; no predicate on top), #LAR_ENOMEM.
 */
int lar_query_not(lar_query *query);

/** @brief Finish the query: the stack must hold exactly one predicate, which
 *  is resolved and type-checked against the class as lar_query_parse() checks
 *  text (its messages, without columns). A finished query is used as a parsed
 *  one: lar_query_argument_count(), lar_query_bind(), lar_query_describe().
 * @param[in] query  A query being built.
 * @return #LAR_OK, or #LAR_EINVAL (see the group; not exactly one predicate on
 *         the stack, an unknown property, a type mismatch...), #LAR_ENOMEM.
 */
int lar_query_finish(lar_query *query);
/** @} */

/** @defgroup results Queries: running and results
 *  lar_query_run() checks every object of the query's class and keeps the keys
 *  of those that match, in key order (creation order, or primary-key order for a
 *  class whose primary key is an int: see lar_iter), in a result. A term
 *  `==`, `IN` or a range (`<`, `<=`, `>`, `>=`, `BETWEEN`) on a primary key or
 *  #LAR_PROP_INDEXED property, alone, in a top-level `AND`, or in every branch
 *  of a top-level `OR`, reads the index instead (for an int primary key, the class's
 *  own keys): only the objects it names are checked (ranges use the index for
 *  int, timestamp, ObjectId and UUID properties, whose keys keep their order;
 *  string indexes answer `==` and `IN`). Every other predicate is compiled
 *  once per run into checks that read only the properties they need.
 *
 *  Semantics (realm-core's): a comparison through a list, set, map or backlink
 *  means ANY unless `ALL` or `NONE` says otherwise (both hold for an empty
 *  collection); a null link in a chain of to-one links yields null, so
 *  `owner.name == nil` matches objects without an owner; null equals only null
 *  and no ordering holds for it; numbers compare by value across int, float,
 *  double, decimal128 and mixed values (a float or double meets a decimal128
 *  as realm-core converts it: a double at 15 significant digits, a float at
 *  7); strings order by
 *  their bytes (Unicode code point order); a map key that is missing reads as
 *  null; `[c]` folds case and `[d]` diacritics for the characters below U+0250
 *  (Latin: realm-core's rule; others match only exactly); `@count` of a string
 *  or binary is its size in bytes; `@sum` of an empty collection is 0, and
 *  `@min`, `@max` and `@avg` of one are null.
 *
 *  `['key']` on a mixed value reads the key of the nested dictionary it holds
 *  (null when the key is missing or the value is no dictionary).
 *
 *  `@sum` and `@avg` of decimal128 values are exact, then rounded to 34
 *  significant digits (half to even); mixed with floats or doubles, they are
 *  summed as doubles.
 *
 *  The `SORT`, `DISTINCT` and `LIMIT` suffixes apply to the matching objects in
 *  the order written, as lar_results_sort(), lar_results_distinct() and
 *  lar_results_limit() do.
 *
 *  Versions: a result records the version it was computed at. In a read
 *  transaction that is the snapshot; in a write transaction, that transaction
 *  and its count of changes so far (any change made since, or the end of the
 *  transaction, makes the result out of date). lar_results_is_current() tells
 *  whether a result still describes what a transaction sees; when it does
 *  not, run the query again: a result never changes by itself.
 *  @{
 */
/** The keys of the objects a query selected, in order. */
typedef struct lar_results lar_results;

/** @brief Run a query: collect the objects of its class that match it.
 *
 * Ownership: the caller owns *out and releases it with lar_results_free(). A
 * result is plain data (keys): it stays valid after txn ends and after query is
 * freed, and may be read from any thread one at a time. It belongs to txn's
 * environment: functions that take a transaction refuse it with one of another
 * environment, and once its environment has closed, only the functions that
 * take no transaction may be given it. A result computed in a write
 * transaction is tied to it until it ends (it follows its changes): free it on
 * that transaction's thread, or after the transaction ended.
 * @param[in]  txn    An active transaction of the query's environment.
 * @param[in]  query  A query whose arguments are all bound.
 * @param[out] out    Receives the result; set to NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, a query of another
 *         environment, an unbound argument, a construct not supported yet:
 *         see above); #LAR_EMISUSE (ended or failed transaction);
 *         #LAR_ECORRUPT; #LAR_EIO; #LAR_ENOMEM.
 */
int lar_query_run(lar_txn *txn, lar_query *query, lar_results **out);

/** @brief Count the objects of a result.
 * @param[in]  results  A result.
 * @param[out] out      Receives the count.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument).
 */
int lar_results_count(const lar_results *results, size_t *out);

/** @brief Read the object at a position of a result.
 *
 * The object may have been deleted since the result was computed (functions
 * given it then return #LAR_EDELETED).
 * @param[in]  results  A result.
 * @param[in]  index    A position below lar_results_count().
 * @param[out] out      Receives the object.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, index out of range).
 */
int lar_results_get(const lar_results *results, size_t index, lar_obj *out);

/** @brief Copy up to capacity object keys of a result, from position start on.
 *
 * All objects of a result are of the query's class.
 * Ownership: out stays the caller's, with room for capacity keys.
 * @param[in]  results   A result.
 * @param[in]  start     The first position to copy.
 * @param[out] out       Receives the keys.
 * @param[in]  capacity  The most keys to copy; at least 1.
 * @param[out] count     Receives how many were copied, on every return.
 * @return #LAR_OK with *count from 1 to capacity; #LAR_ENOTFOUND with *count
 *         0 when start is the count (the last error is not set); #LAR_EINVAL
 *         (NULL argument, capacity 0, start past the count).
 */
int lar_results_keys(const lar_results *results, size_t start, lar_objkey *out, size_t capacity,
                     size_t *count);

/** @brief Tell whether a result still describes what a transaction sees.
 *
 * True when txn is a read transaction on the snapshot the result was computed
 * in, or the write transaction it was computed in with no change made since.
 * Otherwise (a newer snapshot, another transaction, a change, or a read
 * transaction looking at a result of a write) it is 0: run the query again.
 * The answer errs only towards 0.
 * @param[in]  results  A result.
 * @param[in]  txn      An active transaction of the result's environment.
 * @param[out] out      Receives 1 or 0.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, another environment),
 *         #LAR_EMISUSE (ended or failed transaction).
 */
int lar_results_is_current(const lar_results *results, lar_txn *txn, int *out);

/** @brief Open an iterator over the objects of a result, in result order.
 *
 * The iterator works as one from lar_iter_open() (lar_iter_next(),
 * lar_iter_next_all(), lar_iter_next_batch() and the lar_iter_bind_*
 * bindings), over the result's objects instead of the whole class; objects
 * deleted since the result was computed are skipped. lar_iter_seek() moves
 * to the first position whose key is at least the key given.
 * Ownership: the caller owns *out and releases it with lar_iter_close(); the
 * iterator copies the keys, so results may be freed first.
 * @param[in]  txn      An active transaction of the result's environment.
 * @param[in]  results  A result.
 * @param[out] out      Receives the iterator; set to NULL on failure.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, another environment, a
 *         class this transaction's schema does not have), #LAR_EMISUSE,
 *         #LAR_ENOMEM.
 */
int lar_iter_open_results(lar_txn *txn, const lar_results *results, lar_iter **out);

/** @brief Free a result.
 *
 * Memory: a result's arrays of 64 KiB or more (its keys and rows, a sort's
 * keys and positions, an iterator's copy) are kept by the freeing thread for its
 * next query, up to 8 of them and 32 MiB (64 MiB for all threads together),
 * and freed when the thread exits: the next query of that size then finds its
 * pages in memory.
 * @param[in] results  A result, or NULL.
 */
void lar_results_free(lar_results *results);

/** @brief Make a result of object keys the caller already has.
 *
 * The result holds a copy of keys, in their order, as objects of cls, and is
 * stamped with txn's version as one from lar_query_run() is: sort, distinct,
 * limit, aggregate, read and iterate it alike. Use it for objects no query
 * selects as such (a list's, in list order; the keys several results share).
 * Keys are not checked: one with no object reads as a deleted object
 * (#LAR_EDELETED from lar_results_sort() and the others; lar_iter_open_results()
 * skips it).
 * Ownership: keys stay the caller's; the caller owns *out and releases it with
 * lar_results_free(), as one from lar_query_run().
 * @param[in]  txn    An active transaction.
 * @param[in]  cls    A class of txn's schema.
 * @param[in]  keys   count object keys; may be NULL when count is 0.
 * @param[in]  count  The number of keys; 0 makes an empty result.
 * @param[out] out    Receives the result; set to NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL out, NULL keys with a count, a class
 *         not in txn's schema, a count too large to hold); #LAR_EMISUSE (ended
 *         or failed transaction); #LAR_ENOMEM.
 */
int lar_results_from_keys(lar_txn *txn, lar_class cls, const lar_objkey *keys, size_t count, lar_results **out);

/** @brief Run a query on the objects the caller names, in their order.
 *
 * Checks each object of keys against query, as lar_query_run() checks the
 * objects of the class, and keeps those that match in the order of keys
 * (a key given twice and matching is kept twice, as a list's repeats are).
 * The cost follows count, not the size of the class: use it to filter a
 * list's, a set's or a backlink's objects. A key with no object in the
 * query's class does not match. The query's `SORT`, `DISTINCT` and `LIMIT`
 * apply to what is kept, as in lar_query_run().
 * Ownership: keys stay the caller's; the caller owns *out and releases it with
 * lar_results_free(), as one from lar_query_run().
 * @param[in]  txn    An active transaction of the query's environment.
 * @param[in]  query  A query whose arguments are all bound.
 * @param[in]  keys   count object keys of the query's class; may be NULL when count is 0.
 * @param[in]  count  The number of keys.
 * @param[out] out    Receives the result; set to NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL query or out, NULL keys with a count,
 *         and the reasons of lar_query_run()); #LAR_EMISUSE (ended or failed
 *         transaction); #LAR_ECORRUPT; #LAR_EIO; #LAR_ENOMEM.
 */
int lar_query_run_keys(lar_txn *txn, lar_query *query, const lar_objkey *keys, size_t count, lar_results **out);
/** @} */

/** @defgroup results_order Results: sorting, distinct, limit and aggregates
 *  A lar_results holds the keys of objects of one class, in order (lar_query_run()
 *  makes one). These functions reorder, thin and fold it in C, with Realm's rules.
 *
 *  Key paths are written as in a query: a property name, or names joined by `.`
 *  through to-one links and embedded objects (`owner.address.city`). An object with a
 *  null link on the way is not one with a null value (realm-core's rule): a sort puts
 *  it after every value ascending and before them descending, distinct drops it, and
 *  aggregates skip it. A key path through or to a list, set, map or linking
 *  objects, to a link itself, or with `@links`, `@count`, `[...]` and the like is
 *  refused ("cannot sort on list property 'dogs'"); an unknown property is named
 *  ("unknown property 'agee' on class 'Dog' at column 1").
 *
 *  Realm's order of values (sort, distinct, min, max): null first; values of
 *  different kinds (in mixed properties) by kind: bool, numbers, string, binary,
 *  timestamp, ObjectId, UUID, link; numbers by value across int, float, double and
 *  decimal128 (int 1 == double 1.0), NaN before every other number; strings by
 *  Unicode code point, which is comparing their UTF-8 bytes (realm-core 14's order:
 *  "" first, a prefix before the longer string, and ASCII's order: space and most
 *  punctuation, digits, "A"..."Z", "[\]^_`", "a"..."z", "{|}~"; then "É" < "é" and
 *  the rest of Unicode);
 *  false before true; timestamps by time; ObjectIds and UUIDs by bytes.
 *  @{
 */
/** One key of a sort. */
typedef struct lar_sort_descriptor {
    const char *keypath;   /**< A key path, NUL-terminated UTF-8. */
    int ascending;         /**< Nonzero: ascending (null first); 0: descending (null last). */
} lar_sort_descriptor;

/** @brief Sort results by several keys.
 *
 * Objects are ordered by the first descriptor's key, those with equal first keys by
 * the second, and so on; objects equal on every key keep their current order (the
 * sort is stable, as Realm's). Each object's keys are read once.
 * @param[in]     txn          An active transaction of the results' environment.
 * @param[in,out] results      The results; reordered in place.
 * @param[in]     descriptors  count descriptors; may be NULL when count is 0.
 * @param[in]     count        Up to 256.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, a transaction of another
 *         environment, a key path that is NULL, not valid UTF-8, unknown or not
 *         sortable: the message names it); #LAR_EDELETED (an object of the results
 *         was deleted); #LAR_EMISUSE (ended transaction); #LAR_ECORRUPT (an undecodable
 *         row); #LAR_ENOMEM. On error the results are unchanged.
 */
int lar_results_sort(lar_txn *txn, lar_results *results, const lar_sort_descriptor *descriptors, size_t count);

/** @brief Keep the first object, in the current order, of each distinct combination
 *  of the values of key paths.
 *
 * Values are distinct as Realm's: nulls are alike, numbers compare by value (in a
 * mixed property int 1 and double 1.0 are alike), strings by bytes.
 * @param[in]     txn       An active transaction of the results' environment.
 * @param[in,out] results   The results; thinned in place, order kept.
 * @param[in]     keypaths  count key paths; may be NULL when count is 0.
 * @param[in]     count     Up to 256; 0 keeps every object.
 * @return As lar_results_sort() ("cannot distinct on list property 'dogs'").
 */
int lar_results_distinct(lar_txn *txn, lar_results *results, const char *const *keypaths, size_t count);

/** @brief Keep the first limit objects of results (all of them when there are fewer).
 * @param[in,out] results  The results.
 * @param[in]     limit    The number to keep.
 * @return #LAR_OK, or #LAR_EINVAL (NULL results).
 */
int lar_results_limit(lar_results *results, size_t limit);

/** Operations of lar_results_aggregate(). */
typedef enum lar_aggregate_op {
    LAR_AGGREGATE_COUNT = 1,   /**< The number of non-null values (of objects, with no key path). */
    LAR_AGGREGATE_MIN = 2,     /**< The least value, in Realm's order. */
    LAR_AGGREGATE_MAX = 3,     /**< The greatest value. */
    LAR_AGGREGATE_SUM = 4,     /**< The sum. */
    LAR_AGGREGATE_AVERAGE = 5  /**< The sum over the number of values taken. */
} lar_aggregate_op;

/** @brief Fold the values a key path reads from each object of results.
 *
 * Realm's rules: nulls are skipped, and so are NaN floats, doubles and decimal128s
 * (except by count). Min and max take ints, floats, doubles, decimal128s,
 * timestamps and mixed values, and yield a value of the property's type (of a mixed
 * value, the value itself, of any kind), or null when there is none. Sum and average
 * take ints, floats, doubles, decimal128s and mixed values (their numbers): the sum of
 * ints is an int, in 64 bits that wrap on overflow (as realm-core's); of floats and
 * doubles a double; of decimal128s an exact decimal128 (rounded to 34 digits); of
 * mixed values a decimal128. A sum of nothing is 0 of that type. The average of ints,
 * floats and doubles is a double, of decimal128s and mixed values a decimal128, and of
 * nothing null. Count counts the non-null values, or, with a NULL key path, the objects.
 * Ownership: a string or binary out of the min or max of a mixed property points into
 * memory owned by the transaction, as lar_obj_get().
 * @param[in]  txn      An active transaction of the results' environment.
 * @param[in]  results  The results.
 * @param[in]  keypath  A key path (see above); NULL only for #LAR_AGGREGATE_COUNT.
 * @param[in]  op       The operation.
 * @param[out] out      Receives the result; #LAR_TYPE_NULL on error.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, unknown op, a bad key path as for
 *         lar_results_sort(), a property of a type the operation does not take:
 *         "operation 'sum' not supported for string property 'Dog.name'");
 *         #LAR_EDELETED; #LAR_EMISUSE; #LAR_ECORRUPT; #LAR_ENOMEM.
 */
int lar_results_aggregate(lar_txn *txn, const lar_results *results, const char *keypath, lar_aggregate_op op,
                          lar_value *out);

/** @brief Fold several aggregates of one key path over results in one pass.
 *
 * out[i] receives what lar_results_aggregate() gives for ops[i], with the same rules;
 * the values are read once for them all (sum and average, min and max of a property
 * cost one pass). An op may repeat. A NULL key path is allowed only when every op is
 * #LAR_AGGREGATE_COUNT.
 * Ownership: as lar_results_aggregate(), for each value.
 * @param[in]  txn      An active transaction of the results' environment.
 * @param[in]  results  The results.
 * @param[in]  keypath  A key path.
 * @param[in]  ops      count operations.
 * @param[in]  count    How many operations (at least one).
 * @param[out] out      count values; all #LAR_TYPE_NULL on error.
 * @return #LAR_OK, or the errors of lar_results_aggregate() (one for any op a
 *         property's type does not take), and #LAR_EINVAL (NULL ops, count 0).
 */
int lar_results_aggregates(lar_txn *txn, const lar_results *results, const char *keypath,
                           const lar_aggregate_op *ops, size_t count, lar_value *out);

/** @brief Fold the values a key path reads from each object a query matches,
 *  without collecting the objects.
 *
 * The same value as lar_query_run() followed by lar_results_aggregate() on its
 * result, with the same rules and errors. A query that scans its class (no index
 * answers a term of it, no SORT, DISTINCT or LIMIT suffix) is folded in that one
 * scan, in key order, in a read transaction; any other, and any in a write
 * transaction, is run into a result that is then folded.
 * Ownership: as lar_results_aggregate(); the query is not changed.
 * @param[in]  txn      An active transaction of the query's environment.
 * @param[in]  query    A query ready to run (finished, every argument bound).
 * @param[in]  keypath  A key path; NULL only for #LAR_AGGREGATE_COUNT (the objects).
 * @param[in]  op       The operation.
 * @param[out] out      Receives the result; #LAR_TYPE_NULL on error.
 * @return #LAR_OK, or the errors of lar_query_run() and lar_results_aggregate().
 */
int lar_query_run_aggregate(lar_txn *txn, lar_query *query, const char *keypath, lar_aggregate_op op, lar_value *out);

/** @brief Fold several aggregates of one key path over the objects a query matches,
 *  in one pass, without collecting the objects.
 *
 * lar_query_run_aggregate() for each of ops at once: out[i] receives its value for
 * ops[i], from one scan when the query scans its class, or one pass over the result
 * it is run into (in a write transaction, or when an index answers it).
 * Ownership: as lar_results_aggregate(), for each value; the query is not changed.
 * @param[in]  txn      An active transaction of the query's environment.
 * @param[in]  query    A query ready to run (finished, every argument bound).
 * @param[in]  keypath  A key path; NULL only when every op is #LAR_AGGREGATE_COUNT.
 * @param[in]  ops      count operations.
 * @param[in]  count    How many operations (at least one).
 * @param[out] out      count values; all #LAR_TYPE_NULL on error.
 * @return #LAR_OK, or the errors of lar_query_run() and lar_results_aggregates().
 */
int lar_query_run_aggregates(lar_txn *txn, lar_query *query, const char *keypath, const lar_aggregate_op *ops,
                             size_t count, lar_value *out);
/** @} */

/** @defgroup changelog Change log
 *  Every commit that changes objects stores one entry in the file's change log,
 *  keyed by its version: which objects of each class it inserted, deleted and
 *  modified, which properties of each modified object changed (a list, set,
 *  map or mixed property counts as changed when its contents did, and a link
 *  nulled because its target was deleted counts too), and the element changes
 *  of lists, sets and maps: a list's inserts, removes, sets and moves by
 *  position; a set's elements added and removed (one by one, by union,
 *  intersection and subtraction, and by deleting the objects a set links to);
 *  a map's keys inserted, removed and set (a key nulled because its object was
 *  deleted is set); a clear of a set or map, without its elements. Changes
 *  inside collections nested in mixed values only mark the property changed.
 *  Objects deleted by a cascade, embedded objects deleted with their owner and
 *  links removed from lists by a delete are all recorded.
 *
 *  A version is the LMDB transaction id of a commit; a snapshot's version is
 *  the last commit it sees. The log keeps the entries after the oldest version
 *  any live reader (of any process) sees: each commit deletes older entries,
 *  so the file does not grow with the log. To read the changes after version
 *  A later, keep a read transaction at A open (or any transaction at A or
 *  earlier) until then.
 *
 *  A file written before the log existed gets its log at its first writable
 *  open (no format change: a file without the log simply has no history
 *  before that); opened only read-only, it has none (#LAR_ENOTFOUND).
 *  @{
 */

/* lar_txn_version() (Transactions) gives a transaction's version. */

/** @brief The file's last committed version, by any process, without a transaction.
 *
 * The version is one a read transaction begun after this call sees (LMDB
 * writes a commit's meta page a moment before it lets new readers use it:
 * this reads the version new readers get, through a brief read transaction
 * of its own).
 * @param[in]  env  An environment.
 * @param[out] out  Receives the version.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument), #LAR_EBUSY (too many
 *         readers), #LAR_EIO, #LAR_ENOMEM.
 */
int lar_env_version(lar_env *env, uint64_t *out);

/** The changes of the commits in a range of versions, folded together. */
typedef struct lar_changes lar_changes;

/** @brief Read the changes committed after a version, up to a transaction's.
 *
 * Folds the log's entries of the versions after from_version, up to txn's
 * version (a write transaction's own changes, not committed yet, are not
 * included), into one account: an object inserted and then deleted in the
 * range does not appear; one modified and then deleted is deleted; one
 * inserted and then modified is inserted.
 * Ownership: the caller owns *out and frees it with lar_changes_free(); it is
 * plain data, valid after txn ends, readable from any thread one at a time.
 * @param[in]  txn           An active transaction.
 * @param[in]  from_version  A version at or before txn's.
 * @param[out] out           Receives the changes; NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, from_version after txn's
 *         version); #LAR_ENOTFOUND (the log no longer holds every commit after
 *         from_version: no reader kept it, or the file has no log);
 *         #LAR_EMISUSE; #LAR_ECORRUPT (a damaged entry); #LAR_ENOMEM.
 */
int lar_changes_read(lar_txn *txn, uint64_t from_version, lar_changes **out);

/** @brief Free changes.
 * @param[in] changes  Changes from lar_changes_read(), or NULL.
 */
void lar_changes_free(lar_changes *changes);

/** @brief The versions changes covers: the commits after *from, up to *to.
 * @param[in]  changes  Changes.
 * @param[out] from     Receives the first version (may be NULL).
 * @param[out] to       Receives the last version (may be NULL).
 * @return #LAR_OK, or #LAR_EINVAL (NULL changes).
 */
int lar_changes_range(const lar_changes *changes, uint64_t *from, uint64_t *to);

/** @brief The classes with inserted, deleted or modified objects, ascending.
 * @param[in]  changes   Changes.
 * @param[out] out       Receives up to capacity classes; may be NULL when capacity is 0.
 * @param[in]  capacity  Room in out.
 * @param[out] count     Receives how many classes changed (may exceed capacity).
 * @return #LAR_OK, or #LAR_EINVAL (NULL changes or count, NULL out with a capacity).
 */
int lar_changes_classes(const lar_changes *changes, lar_class *out, size_t capacity, size_t *count);

/** The changed objects of one class. A key deleted and created again in the
 *  range (an int primary key reused) is in both deleted and inserted. */
typedef struct lar_class_changes {
    const lar_objkey *inserted;   /**< Ascending: objects that exist at the end, not at the start. */
    size_t inserted_count;
    const lar_objkey *deleted;    /**< Ascending: objects that existed at the start, not at the end. */
    size_t deleted_count;
    const lar_objkey *modified;   /**< Ascending: objects at both ends with a property changed. */
    size_t modified_count;
} lar_class_changes;

/** @brief The changed objects of one class.
 *
 * Ownership: the arrays belong to changes and live until it is freed.
 * @param[in]  changes  Changes.
 * @param[in]  cls      Any class id (one without changes, or unknown, gives empty arrays).
 * @param[out] out      Receives the arrays (NULL with a count of 0 when empty).
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument).
 */
int lar_changes_class(const lar_changes *changes, lar_class cls, lar_class_changes *out);

#define LAR_OBJECT_UNCHANGED 0 /**< lar_changes_object(): neither inserted, deleted nor modified. */
#define LAR_OBJECT_INSERTED 1  /**< lar_changes_object(): did not exist at the start. */
#define LAR_OBJECT_DELETED 2   /**< lar_changes_object(): the object of the start was deleted. */
#define LAR_OBJECT_MODIFIED 3  /**< lar_changes_object(): some of its properties changed. */

/** @brief What happened to one object, and which of its properties changed.
 *
 * @param[in]  changes   Changes.
 * @param[in]  obj       Any object.
 * @param[out] state     Receives a LAR_OBJECT_* state.
 * @param[out] props     Receives up to capacity property indices, ascending (for
 *                       #LAR_OBJECT_MODIFIED); may be NULL when capacity is 0.
 * @param[in]  capacity  Room in props.
 * @param[out] count     Receives how many properties changed (may exceed capacity).
 * @return #LAR_OK, or #LAR_EINVAL (NULL changes, state or count, NULL props with a
 *         capacity).
 */
int lar_changes_object(const lar_changes *changes, lar_obj obj, int *state, uint32_t *props, size_t capacity,
                       size_t *count);
/** @} */

/** @defgroup changesets Change sets
 *  Realm's fine-grained change set of an ordered collection between two
 *  versions: deletions (positions in the old collection), insertions
 *  (positions in the new one) and modifications (old positions of the objects
 *  or elements at both ends that changed; #LAR_CHANGESET_MODIFICATIONS_NEW
 *  gives the same ones' new positions), each ascending. An object that moved is
 *  a deletion and an insertion, not a modification. Deleting the deletions
 *  from the old collection and inserting the insertions gives the new one.
 *  @{
 */
/** A change set. */
typedef struct lar_changeset lar_changeset;

/** The parts of a change set. */
typedef enum lar_changeset_part {
    LAR_CHANGESET_DELETIONS = 0,        /**< Old positions, ascending. */
    LAR_CHANGESET_INSERTIONS = 1,       /**< New positions, ascending. */
    LAR_CHANGESET_MODIFICATIONS = 2,    /**< Old positions, ascending. */
    LAR_CHANGESET_MODIFICATIONS_NEW = 3 /**< The same objects' new positions, ascending. */
} lar_changeset_part;

/** @brief One part of a change set.
 * Ownership: *indices belongs to cs and lives until it is freed.
 * @param[in]  cs       A change set.
 * @param[in]  part     Which part.
 * @param[out] indices  Receives the positions (NULL when there are none).
 * @param[out] count    Receives their number.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, unknown part).
 */
int lar_changeset_get(const lar_changeset *cs, lar_changeset_part part, const size_t **indices, size_t *count);

/** @brief Whether a change set has no deletion, insertion or modification.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument).
 */
int lar_changeset_is_empty(const lar_changeset *cs, int *out);

/** @brief Free a change set.
 * @param[in] cs  A change set, or NULL.
 */
void lar_changeset_free(lar_changeset *cs);

/** @brief The change set of a list property between two versions, from the log.
 *
 * Replays the element changes the log recorded for obj's list property prop (its
 * own list: changes inside nested collections of a mixed list only mark the
 * property changed) over the versions changes covers. Setting an element is a
 * modification; moving one is a deletion and an insertion.
 * Ownership: the caller owns *out and frees it with lar_changeset_free().
 * @param[in]  changes    Changes from lar_changes_read().
 * @param[in]  obj        The list's object, at both ends of the range.
 * @param[in]  prop       The list property.
 * @param[in]  old_count  The list's count at the start of the range.
 * @param[out] out        Receives the change set; NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument); #LAR_EDELETED (obj was deleted,
 *         or did not exist at the start); #LAR_ECORRUPT (old_count does not fit the
 *         changes recorded); #LAR_ENOMEM.
 */
int lar_list_changeset(const lar_changes *changes, lar_obj obj, uint32_t prop, size_t old_count,
                       lar_changeset **out);

/** @brief The change set of a list of objects: lar_list_changeset() plus, as
 *  modifications, the elements that stayed whose objects were modified.
 *
 * Realm reports a list of objects modified at an element when that object
 * changed; this reads the list at txn to find them (O(n) for n elements).
 * Ownership: the caller owns *out and frees it with lar_changeset_free().
 * @param[in]  txn        An active transaction at the version changes ends at.
 * @param[in]  changes    Changes from lar_changes_read().
 * @param[in]  obj        The list's object, at both ends of the range.
 * @param[in]  prop       The list property (of objects, or of mixed values: their links count).
 * @param[in]  old_count  The list's count at the start of the range.
 * @param[out] out        Receives the change set; NULL on failure.
 * @return As lar_list_changeset(), and #LAR_EINVAL (not a list property, or a
 *         list at txn whose count the changes do not make), #LAR_EMISUSE.
 */
int lar_list_changeset_objects(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop, size_t old_count,
                               lar_changeset **out);

/** @brief Bring a query's result to a newer version, with its change set.
 *
 * results must have been computed in a read transaction at some version A by
 * lar_query_run(query), then sorted by lar_results_sort(sort, sort_count) or
 * not at all (nothing else: put DISTINCT and LIMIT in the query's text). It is
 * updated in place to what lar_query_run() and lar_results_sort() would give
 * in txn (at a version B at or after A), and *out receives Realm's change
 * set from A to B: an object of the result that was modified in any property
 * and kept its place is a modification; one whose place among the others
 * changed is a deletion and an insertion.
 *
 * Cost: when the query and the sort read only properties of the class itself
 * (no key path through a link, no backlinks, no subquery, no DISTINCT or
 * LIMIT) and few objects of the class changed, only the changed objects are
 * read: each is found in the old order by binary search, its old sort keys
 * read through old_txn (without old_txn, the old keys are scanned, which is
 * cheap but grows with the result, and more than 16 changed objects run the
 * query again), then checked against the query and placed
 * among the unchanged objects by binary search. The first such update puts the
 * result's keys in blocks (a move shifts one block's keys) and reads every
 * object's sort keys once, in key order, to keep them beside its key (a
 * sizeof(lar_value) each, per sort key, and a copy of each string or binary):
 * from then on both searches run in memory and an update reads only the objects
 * that changed, whatever the result's length. Otherwise the query runs again at B and the
 * keys are compared; then changes reached through links move objects but are
 * not reported as modifications.
 *
 * The changes come from the change log (see @ref changelog): keep a read
 * transaction at A open until the update, as old_txn or otherwise.
 * Ownership: the caller owns *out and frees it with lar_changeset_free().
 * @param[in]     old_txn     NULL, or an active read transaction at version A.
 * @param[in]     txn         An active read transaction at version B >= A.
 * @param[in]     query       The query results was computed by, all arguments bound.
 * @param[in]     sort        sort_count descriptors, as given to lar_results_sort(); NULL when 0.
 * @param[in]     sort_count  Up to 256.
 * @param[in,out] results     The result at A; at B on success, unchanged on failure.
 * @param[out]    out         Receives the change set; NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, a query, txn or old_txn of another
 *         environment or class, old_txn not at A, txn older than A, a bad key path);
 *         #LAR_EMISUSE (txn a write transaction, results computed in one, an ended
 *         transaction); #LAR_ENOTFOUND (the log no longer holds the changes after
 *         A); #LAR_ECORRUPT; #LAR_ENOMEM.
 */
int lar_results_update(lar_txn *old_txn, lar_txn *txn, lar_query *query, const lar_sort_descriptor *sort,
                       size_t sort_count, lar_results *results, lar_changeset **out);

/** @brief The change set of a set property between two snapshots.
 *
 * Positions are in the set's order (lar_set_list()) at each version: deletions
 * of the elements at old_txn that txn lacks, insertions of those at txn that
 * old_txn lacks; elements in both keep their relative order, and a set has no
 * modifications.
 *
 * Cost: with changes covering exactly the versions of the two snapshots (from
 * old_txn's to txn's, both read transactions), an unchanged property costs
 * nothing, and a changed one is computed from the elements the log lists: each
 * is placed by counting the set's blocks (one LMDB step per block of some
 * dozens of elements) from both ends at once, so a change near either end
 * costs a few steps and one in the middle about n / 100, then reading the
 * block that holds it. Without
 * such changes, or when the log does not list the elements (the set was
 * cleared in the range, or an entry was written by a version of the library
 * before sets' element changes), each side is walked and each element looked
 * up in the other (O(n log n)). Both give the same change set.
 * Ownership: the caller owns *out and frees it with lar_changeset_free().
 * @param[in]  old_txn  An active read transaction at the older version.
 * @param[in]  txn      An active read transaction at the newer one.
 * @param[in]  changes  The changes between them (lar_changes_read()), or NULL.
 * @param[in]  obj      The set's owner, at both versions.
 * @param[in]  prop     A set property.
 * @param[out] out      Receives the change set; NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, transactions of different
 *         environments, not a set property); #LAR_EDELETED (obj does not exist at
 *         both versions); #LAR_EMISUSE; #LAR_ECORRUPT; #LAR_ENOMEM.
 */
int lar_set_changeset(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                      lar_changeset **out);

/** The changes of a map (Realm's RealmMapChange): keys (lar_map_changeset(),
 *  lar_changes_map_keys()). */
typedef struct lar_map_changes lar_map_changes;

/** @brief The changes of a map property between two snapshots.
 *
 * Deletions are the keys at old_txn that txn lacks, insertions the keys at txn
 * that old_txn lacks, modifications the keys at both whose values differ (a
 * nested collection counts as changed whenever the property changed; a link
 * counts when its object was modified, given changes).
 *
 * Cost: with changes covering exactly the versions of the two snapshots (both
 * read transactions), from the keys the log lists: O(k log n) for k keys
 * changed (a key set again has its two values compared). Each side is instead
 * walked and each key looked up in the other (O(n log n)) without such
 * changes, when the log does not list the keys (a clear, an entry of an older
 * library), for a map of mixed values (its values may be nested collections),
 * and for a map of objects of which the changes say one it holds was modified.
 * Both give the same changes.
 * Ownership: the caller owns *out and frees it with lar_map_changes_free(); its
 * keys are copies (followed by a NUL byte) that live as long as it.
 * @param[in]  old_txn  An active read transaction at the older version.
 * @param[in]  txn      An active read transaction at the newer one.
 * @param[in]  changes  The changes between them (lar_changes_read()), or NULL.
 * @param[in]  obj      The map's owner, at both versions.
 * @param[in]  prop     A map property.
 * @param[out] out      Receives the changes; NULL on failure.
 * @return As lar_set_changeset() (#LAR_EINVAL also for a property that is no map).
 */
int lar_map_changeset(lar_txn *old_txn, lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                      lar_map_changes **out);

/** @brief The keys of one part of a map's changes, in key order.
 * @param[in]  changes  A map's changes.
 * @param[in]  part     #LAR_CHANGESET_DELETIONS, #LAR_CHANGESET_INSERTIONS or
 *                      #LAR_CHANGESET_MODIFICATIONS.
 * @param[out] keys     Receives the keys (NULL when there are none), owned by changes.
 * @param[out] count    Receives their number.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, another part).
 */
int lar_map_changes_get(const lar_map_changes *changes, lar_changeset_part part, const lar_string **keys,
                        size_t *count);

/** @brief Free a map's changes.
 * @param[in] changes  Changes from lar_map_changeset(), or NULL.
 */
void lar_map_changes_free(lar_map_changes *changes);

/** The element changes of a set: values. */
typedef struct lar_set_changes lar_set_changes;

/** @brief The elements a set property gained and lost over the range of changes.
 *
 * Netted from the log: an element added then removed in the range is in
 * neither part. Part #LAR_CHANGESET_DELETIONS holds the elements at the start
 * and not at the end, #LAR_CHANGESET_INSERTIONS those at the end and not at
 * the start, each in the set's order (a number of a set of mixed values as
 * the set holds it).
 * Ownership: the caller owns *out and frees it with lar_set_changes_free(); a
 * string or binary value points into changes: use the values while both live.
 * @param[in]  txn      An active transaction of the environment (for its schema).
 * @param[in]  changes  Changes from lar_changes_read().
 * @param[in]  obj      The set's owner (at both ends of the range).
 * @param[in]  prop     A set property of obj's class.
 * @param[out] out      Receives the changes; NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument, not a set property, an
 *         unknown class or property); #LAR_EDELETED (obj was inserted or deleted
 *         in the range); #LAR_ENOTFOUND (the log does not list the elements: the
 *         set was cleared in the range, or changed by a version of the library
 *         before element changes of sets: compare snapshots with
 *         lar_set_changeset()); #LAR_EMISUSE; #LAR_ECORRUPT; #LAR_ENOMEM.
 */
int lar_changes_set_elements(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                             lar_set_changes **out);

/** @brief One part of a set's element changes.
 * @param[in]  changes  A set's changes.
 * @param[in]  part     #LAR_CHANGESET_DELETIONS or #LAR_CHANGESET_INSERTIONS.
 * @param[out] values   Receives the elements (NULL when there are none), owned by changes.
 * @param[out] count    Receives their number.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument, another part).
 */
int lar_set_changes_get(const lar_set_changes *changes, lar_changeset_part part, const lar_value **values,
                        size_t *count);

/** @brief Free a set's element changes.
 * @param[in] changes  Changes from lar_changes_set_elements(), or NULL.
 */
void lar_set_changes_free(lar_set_changes *changes);

/** @brief The keys a map property gained, lost and had set over the range of changes.
 *
 * Netted from the log: deletions are the keys at the start and not at the end,
 * insertions those at the end and not at the start, modifications those at
 * both that were set (even to an equal value) or removed and put again; each
 * in key order. Read with lar_map_changes_get(); the values themselves are not
 * logged (read them in snapshots; lar_map_changeset() compares them).
 * Ownership: the caller owns *out and frees it with lar_map_changes_free().
 * @param[in]  txn      An active transaction of the environment (for its schema).
 * @param[in]  changes  Changes from lar_changes_read().
 * @param[in]  obj      The map's owner (at both ends of the range).
 * @param[in]  prop     A map property of obj's class.
 * @param[out] out      Receives the changes; NULL on failure.
 * @return As lar_changes_set_elements() (a map instead of a set; #LAR_ENOTFOUND
 *         also when a change inside a dictionary nested in a value is in the range).
 */
int lar_changes_map_keys(lar_txn *txn, const lar_changes *changes, lar_obj obj, uint32_t prop,
                         lar_map_changes **out);
/** @} */

/** @defgroup watch Watching for commits
 *  A watch tells when any process (this one included) has committed to the
 *  file: it watches the data file with inotify (every commit writes it) and
 *  confirms with the file's last committed version, so it never wakes for a
 *  write that did not commit and never busy-polls. Linux only: elsewhere
 *  lar_watch_open() fails with #LAR_ENOTSUP. A watch is used by one thread at
 *  a time; close it before closing its environment.
 *  @{
 */
/** A watch on an environment's file. */
typedef struct lar_watch lar_watch;

/** @brief Start watching for commits.
 *
 * The watch remembers the file's current version (lar_env_version()); a later
 * commit is one after it.
 * Ownership: the caller owns *out and closes it with lar_watch_close().
 * @param[in]  env  An open environment.
 * @param[out] out  Receives the watch; NULL on failure.
 * @return #LAR_OK, or: #LAR_EINVAL (NULL argument); #LAR_EBUSY (the system's
 *         inotify limits or the readers are full); #LAR_EIO; #LAR_ENOTSUP (no inotify);
 *         #LAR_ENOMEM.
 */
int lar_watch_open(lar_env *env, lar_watch **out);

/** @brief A file descriptor that becomes readable when the file is written.
 *
 * For an event loop (poll, epoll, a DispatchSource): when it is readable, call
 * lar_watch_wait() with a timeout of 0, which drains it and tells whether a
 * commit happened. Do not read or close it yourself.
 * @param[in]  watch  A watch.
 * @param[out] out    Receives the descriptor, valid until the watch is closed.
 * @return #LAR_OK, or #LAR_EINVAL (NULL argument).
 */
int lar_watch_fd(const lar_watch *watch, int *out);

/** @brief Wait until some process commits.
 *
 * Returns as soon as the file's last committed version (lar_env_version()) is
 * past the last one this watch reported (or saw at open), sleeping in poll()
 * meanwhile. A read transaction begun after this returns sees that version:
 * a commit whose last page is written but which LMDB has not yet published to
 * new readers (a moment later) is waited for, even past timeout_ms (at most
 * a second, when its writer died in between; the next commit then reports it).
 * @param[in]  watch       A watch.
 * @param[in]  timeout_ms  The longest wait, in milliseconds: 0 only checks, a
 *                         negative value waits as long as it takes.
 * @param[out] version     Receives the new version.
 * @return #LAR_OK with *version; #LAR_ENOTFOUND when the time ran out with no
 *         commit (the last error is not set); #LAR_EINVAL (NULL argument);
 *         #LAR_EBUSY (too many readers); #LAR_EIO; #LAR_ENOMEM.
 */
int lar_watch_wait(lar_watch *watch, int timeout_ms, uint64_t *version);

/** @brief Stop watching.
 * @param[in] watch  A watch, or NULL.
 */
void lar_watch_close(lar_watch *watch);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* LARDER_H */
