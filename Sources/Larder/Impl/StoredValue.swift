import CLarder
import CLarderSwift
import Foundation

/// A property value held by an unmanaged object, and the bridge to the C core's `lar_value`.
/// Public only because `_Persistable` needs it; not part of the API.
public enum _StoredValue: Hashable {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case uuid(UUID)
    case decimal128(Decimal128)
    /// A link's target; managed by the time it is written.
    case object(Object)
    /// A List, MutableSet or Map: its elements live in it while it is unmanaged.
    case collection(_LarderCollection)

    /// Whether the value holds no reference, so that overwriting it releases nothing.
    @inlinable
    var holdsNoReference: Bool {
        switch self {
        case .string, .data, .object, .collection: return false
        default: return true
        }
    }

    /// Reads a C value; strings and bytes are copied out of the transaction's memory.
    @usableFromInline
    init(_ value: lar_value) {
        switch value.type {
        case LAR_TYPE_INT: self = .int(value.as.integer)
        case LAR_TYPE_BOOL: self = .bool(value.as.boolean != 0)
        case LAR_TYPE_FLOAT: self = .float(value.as.float32)
        case LAR_TYPE_DOUBLE: self = .double(value.as.float64)
        case LAR_TYPE_STRING: self = .string(String(larderString: value.as.string))
        case LAR_TYPE_BINARY: self = .data(Data(larderBinary: value.as.binary))
        case LAR_TYPE_TIMESTAMP: self = .date(Date(larderTimestamp: value.as.timestamp))
        case LAR_TYPE_OBJECT_ID: self = .objectId(ObjectId(larderValue: value.as.object_id))
        case LAR_TYPE_UUID: self = .uuid(UUID(uuid: unsafeBitCast(value.as.uuid, to: uuid_t.self)))
        case LAR_TYPE_DECIMAL128:
            self = .decimal128(Decimal128(low: value.as.decimal128.low, high: value.as.decimal128.high))
        default: self = .null
        }
    }

    /// Bytes a string or binary needs in an arena; 0 for other values.
    var arenaSize: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .data(let d): return d.count
        default: return 0
        }
    }

    /// Writes the C form of the value to out; string and binary bytes are copied to arena, which advances.
    func write(to out: UnsafeMutablePointer<lar_value>, arena: inout UnsafeMutableRawPointer) {
        switch self {
        // Numbers through C, which writes the tag and the number in place.
        case .int(let v): larder_swift_set_int(out, v)
        case .double(let v): larder_swift_set_double(out, v)
        case .float(let v): larder_swift_set_float(out, v)
        case .bool(let v): larder_swift_set_bool(out, v ? 1 : 0)
        default: out.pointee = composite(arena: &arena)
        }
    }

    /// The C form of a value that is not a number.
    private func composite(arena: inout UnsafeMutableRawPointer) -> lar_value {
        var value = lar_value()
        switch self {
        case .int, .double, .float, .bool: fatalError("numbers are written by write(to:arena:)")
        case .collection: value.type = LAR_TYPE_NULL // a collection's row value; elements are written apart
        case .object(let target):
            value.type = LAR_TYPE_LINK
            value.as.link = lar_obj(cls: target.core.table.id, key: target.core.key)
        case .null: value.type = LAR_TYPE_NULL
        case .date(let v): value.type = LAR_TYPE_TIMESTAMP; value.as.timestamp = v.larderTimestamp
        case .objectId(let v): value.type = LAR_TYPE_OBJECT_ID; value.as.object_id = v.larderValue
        case .uuid(let v): value.type = LAR_TYPE_UUID; value.as.uuid = unsafeBitCast(v.uuid, to: lar_uuid.self)
        case .decimal128(let v):
            value.type = LAR_TYPE_DECIMAL128
            value.as.decimal128 = lar_decimal128(low: v.low, high: v.high)
        case .string(let s):
            let start = arena
            let count = s.utf8.withContiguousStorageIfAvailable { bytes in
                arena.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                return bytes.count
            } ?? {
                let bytes = Array(s.utf8)
                arena.copyMemory(from: bytes, byteCount: bytes.count)
                return bytes.count
            }()
            arena += count
            value.type = LAR_TYPE_STRING
            value.as.string = lar_string(data: start.assumingMemoryBound(to: CChar.self), size: count)
        case .data(let d):
            let start = arena
            d.copyBytes(to: arena.assumingMemoryBound(to: UInt8.self), count: d.count)
            arena += d.count
            value.type = LAR_TYPE_BINARY
            value.as.binary = lar_binary(data: start, size: d.count)
        }
        return value
    }

    /// The same for an array of values, those of the indexes in nulling written as null.
    static func withCValues<R>(_ values: ContiguousArray<_StoredValue>, nulling: SlotMask,
                               _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        if nulling.isEmpty { return withCValues(values, body) }
        return withUnsafePointer(to: _StoredValue.null) { null in
            values.withUnsafeBufferPointer { stored in
                withCValues(count: stored.count, at: { nulling.contains($0) ? null : stored.baseAddress.unsafelyUnwrapped + $0 },
                            body)
            }
        }
    }

    /// Calls body with the C form of values (in that order); pointers live only during the call.
    static func withCValues<R>(_ values: some Collection<_StoredValue>,
                               _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        if let result = values.withContiguousStorageIfAvailable({ withCValues(stored: $0, body) }) { return result }
        return ContiguousArray(values).withUnsafeBufferPointer { withCValues(stored: $0, body) }
    }

    /// Indexing borrows each stored value, where iterating a collection copies it.
    private static func withCValues<R>(stored: UnsafeBufferPointer<_StoredValue>,
                                       _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        withCValues(count: stored.count, at: { stored.baseAddress.unsafelyUnwrapped + $0 }, body)
    }

    /// The same for the count values at(0), at(1), ..., wherever they are (an unmanaged
    /// object's wrappers: no array of its values is built).
    @inline(__always)
    static func withCValues<R>(count: Int, at: (Int) -> UnsafePointer<_StoredValue>,
                               _ body: (UnsafeMutablePointer<lar_value>, Int) -> R) -> R {
        var bytes = 0
        for index in 0..<count { bytes += at(index).pointee.arenaSize }
        return withUnsafeTemporaryAllocation(byteCount: max(bytes, 1), alignment: 8) { arenaBuffer in
            withUnsafeTemporaryAllocation(of: lar_value.self, capacity: max(count, 1)) { buffer in
                var arena = arenaBuffer.baseAddress!
                for index in 0..<count { at(index).pointee.write(to: buffer.baseAddress! + index, arena: &arena) }
                return body(buffer.baseAddress!, count)
            }
        }
    }

    /// Calls body with the C form of this value.
    func withCValue<R>(_ body: (UnsafeMutablePointer<lar_value>) -> R) -> R {
        switch self {
        case .string, .data:
            return _StoredValue.withCValues(CollectionOfOne(self)) { values, _ in body(values) }
        default:
            // Nothing to copy to an arena: the value is written in place (a
            // single put's hot path, where the arena's allocations showed).
            var value = lar_value()
            return withUnsafeMutablePointer(to: &value) { out in
                var noArena = UnsafeMutableRawPointer(out) // never written: only strings and bytes use the arena
                write(to: out, arena: &noArena)
                return body(out)
            }
        }
    }

    /// The value as Realm's KVC returns it (nil for null).
    var anyValue: Any? {
        switch self {
        case .null: return nil
        case .int(let v): return Int(v)
        case .bool(let v): return v
        case .float(let v): return v
        case .double(let v): return v
        case .string(let v): return v
        case .data(let v): return v
        case .date(let v): return v
        case .objectId(let v): return v
        case .uuid(let v): return v
        case .decimal128(let v): return v
        case .object(let v): return v
        case .collection(let v): return v
        }
    }

    /// The same inside a description depth levels down: objects and collections
    /// print nested, and the depth stops cycles.
    func displayText(depth: Int) -> String {
        switch self {
        case .object(let v): return v.describe(depth: depth + 1).replacingOccurrences(of: "\n", with: "\n\t")
        case .collection(let v): return v.describe(depth: depth + 1).replacingOccurrences(of: "\n", with: "\n\t")
        default: return displayText
        }
    }

    /// How Realm prints the value in an object's description and in error messages.
    var displayText: String {
        switch self {
        case .null: return "nil"
        case .string(let v): return "\"\(v)\""
        case .data(let v): return "<\(v.count) bytes>"
        case .object(let v): return v.description.replacingOccurrences(of: "\n", with: "\n\t")
        case .collection(let v): return v.description.replacingOccurrences(of: "\n", with: "\n\t")
        default: return "\(anyValue!)"
        }
    }
}

extension String {
    /// The string stored at s. Inlined into property reads for the short ASCII ones
    /// most properties hold (see `init(smallASCII:count:)`); others are copied.
    @inlinable
    init(larderString s: lar_string) {
        if s.size <= 15, s.size > 0, let data = s.data, let small = String(smallASCII: data, count: s.size) {
            self = small
            return
        }
        self.init(copyingLarderString: s)
    }

    @usableFromInline
    init(copyingLarderString s: lar_string) {
        guard let data = s.data, s.size > 0 else { self = ""; return }
        // Copied straight into the new string: a short ASCII one is then built in place
        // with no validation pass, where String(decoding:) checks every byte and then
        // assembles it byte by byte (a fifth fewer instructions per string read). Bytes
        // that are not UTF-8 are repaired the same way.
        self = String(unsafeUninitializedCapacity: s.size) { buffer in
            UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: data, byteCount: s.size)
            return s.size
        }
    }

    /// The string of count (1...15) ASCII bytes at data, built as the standard library
    /// builds a small string: its bytes in the string's two words, the last byte holding
    /// the count and the discriminator of an immortal small ASCII string (0xE0). Nil
    /// when a byte is not ASCII (the caller then validates). Most property strings are
    /// this short: building them so skips the validation and the buffer that
    /// `String(unsafeUninitializedCapacity:)` goes through (~140 instructions a string
    /// against ~25). `SmallStringTests` checks the layout against the standard library's
    /// own strings of every length.
    @inlinable
    init?(smallASCII data: UnsafeRawPointer, count: Int) {
        #if arch(x86_64) || arch(arm64)
        var words = String.smallWords(data, count: count)
        guard (words.0 | words.1) & 0x8080_8080_8080_8080 == 0 else { return nil }
        words.1 |= (0xE0 | UInt64(count)) << 56
        // Moved out rather than cast: a cast copies, and retains the (immortal) string.
        self = withUnsafeMutablePointer(to: &words) { $0.withMemoryRebound(to: String.self, capacity: 1) { $0.move() } }
        #else
        return nil
        #endif
    }

    /// The count (1...15) bytes at data in two little-endian words, zero past count: two
    /// 8-byte loads and a mask when the 16 bytes from data lie in one 4 KiB block (memory is
    /// mapped in whole pages, a multiple of that, so the bytes past the string can be read),
    /// else a copy. Copying the bytes into the words and loading them back made each read
    /// wait on the copy's stores (a store-forwarding stall, a few ns a string). A bounds
    /// checker (ASan, valgrind's memcheck) may report the read past a string that ends a
    /// heap block (a write transaction's copies): the bytes read there are masked away.
    @inlinable
    static func smallWords(_ data: UnsafeRawPointer, count: Int) -> (UInt64, UInt64) {
        guard UInt(bitPattern: data) & 4095 <= 4096 - 16 else { return copiedWords(data, count: count) }
        let low = UInt64(littleEndian: data.loadUnaligned(as: UInt64.self))
        let high = UInt64(littleEndian: (data + 8).loadUnaligned(as: UInt64.self))
        let bits = UInt64(truncatingIfNeeded: count) &* 8
        if count < 8 { return (low & ((1 &<< bits) &- 1), 0) }
        return (low, high & ((1 &<< (bits &- 64)) &- 1))
    }

    @usableFromInline @inline(never)
    static func copiedWords(_ data: UnsafeRawPointer, count: Int) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: data, byteCount: count) }
        return words
    }
}

extension Data {
    init(larderBinary b: lar_binary) {
        guard let data = b.data, b.size > 0 else { self = Data(); return }
        self = Data(bytes: data, count: b.size)
    }
}

extension Date {
    init(larderTimestamp t: lar_timestamp) {
        self = Date(timeIntervalSince1970: Double(t.seconds) + Double(t.nanoseconds) / 1e9)
    }

    /// Seconds and nanoseconds of the same sign, as the C core requires.
    var larderTimestamp: lar_timestamp {
        let interval = timeIntervalSince1970
        var seconds = interval.rounded(.towardZero)
        var nanos = ((interval - seconds) * 1e9).rounded()
        if abs(nanos) >= 1e9 { seconds += nanos > 0 ? 1 : -1; nanos = 0 }
        return lar_timestamp(seconds: Int64(seconds), nanoseconds: Int32(nanos))
    }
}

extension ObjectId {
    init(larderValue v: lar_object_id) {
        let bytes = withUnsafeBytes(of: v.bytes) { Array($0) }
        self.init(bytes: bytes)
    }

    var larderValue: lar_object_id {
        var v = lar_object_id()
        let source = bytes
        withUnsafeMutableBytes(of: &v.bytes) { $0.copyBytes(from: source) }
        return v
    }
}
