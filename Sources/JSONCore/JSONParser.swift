import Foundation

/// An iterative RFC 8259 parser over a byte buffer: an explicit stack of open containers
/// replaces recursion, so the depth limit is a policy, not a guard against stack overflow.
///
/// Where the time goes (measured with callgrind on the validator bench document) decides the
/// design; Docs/benchmarks.md has the figures.
/// - The members of every open container wait on shared scratch stacks (values; keys with their
///   offsets), moved in and out without reference counting, and a container is built once, at
///   its final size, when it closes.
/// - Objects of a shape seen before (the same keys in the same order, as API responses repeat
///   them in every element of an array) are not hashed key by key: the parser keeps, per shape,
///   a prototype dictionary from each key to its position, and builds the object with
///   `mapValues` on it, which copies the prototype's hash table as it is (same buckets, same
///   seed) and only fills in the values. A key is hashed once per shape, not once per object.
/// - Keys and short strings are interned: a repeated one costs two word compares, not a
///   validation and a new `String`; an interned key has a number that identifies the shape.
/// - Strings are scanned eight bytes at a time; integers, and decimals with at most 15 digits
///   and a small exponent, are converted without `strtod`.
struct JSONParser {
    /// An array or object that is open while its members are parsed.
    private struct Frame {
        var isObject: Bool
        /// Where this container's members start on `values`.
        var valueStart: Int
        /// Where this object's keys start on `keys` (unused for an array).
        var keyStart: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    /// The members parsed so far of every open container, innermost last. Values are moved in
    /// and out, never copied, so building a container costs no reference counting.
    private let values = ScratchStack<JSONValue>()
    /// The keys parsed so far of every open object, innermost last.
    private let keys = ScratchStack<PendingKey>()
    /// Keys seen before, each with its number (for shapes).
    private let keyTable: InternTable
    /// Short string values seen before.
    private let stringTable: InternTable
    /// The object shapes seen before.
    private let shapes: ShapeTable

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        // A small document gets small tables: their set-up is part of every parse.
        let slots = InternTable.slots(forInputSize: bytes.count)
        keyTable = InternTable(slots: slots)
        stringTable = InternTable(slots: slots)
        shapes = ShapeTable(slots: slots / 2)
    }

    /// Parses the whole buffer as one document followed only by whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        var stack: [Frame] = []
        parsing: while true {
            skipWhitespace()
            guard index < bytes.count else {
                throw fail(.unexpectedEnd, stack.isEmpty && index == 0 ? "empty input" : "input ended where a value was expected")
            }
            var completed: JSONValue
            switch bytes[index] {
            case UInt8(ascii: "\""):
                completed = .string(try parseString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                completed = try parseNumber()
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw fail(.tooDeep, "containers nested deeper than \(maxDepth) levels") }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    completed = .object([:])
                } else {
                    stack.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    try parseKey()
                    continue parsing
                }
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw fail(.tooDeep, "containers nested deeper than \(maxDepth) levels") }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    completed = .array([])
                } else {
                    stack.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue parsing
                }
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                completed = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                completed = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                completed = .null
            default:
                throw fail(.unexpectedByte, "expected a value, found \(describeByte(bytes[index]))")
            }

            // Push the completed value onto its parent's members; close every parent that ends here.
            while let frame = stack.last {
                values.push(consume completed)
                skipWhitespace()
                guard index < bytes.count else {
                    throw fail(.unexpectedEnd, frame.isObject ? "input ended inside an object" : "input ended inside an array")
                }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if frame.isObject {
                        skipWhitespace()
                        try parseKey()
                    }
                    continue parsing
                }
                if frame.isObject {
                    guard byte == UInt8(ascii: "}") else {
                        throw fail(.unexpectedByte, "expected ',' or '}' after an object member, found \(describeByte(byte))")
                    }
                    index += 1
                    completed = .object(try closeObject(frame))
                } else {
                    guard byte == UInt8(ascii: "]") else {
                        throw fail(.unexpectedByte, "expected ',' or ']' after an array element, found \(describeByte(byte))")
                    }
                    index += 1
                    completed = .array(values.moveOut(from: frame.valueStart))
                }
                stack.removeLast()
            }
            skipWhitespace()
            guard index == bytes.count else {
                throw fail(.trailingData, "unexpected \(describeByte(bytes[index])) after the end of the document")
            }
            return completed
        }
    }

    // MARK: - Objects

    /// Builds the object of `frame` from the scratch stacks and pops its members: from the
    /// prototype of its shape when the shape was seen before, else key by key.
    private mutating func closeObject(_ frame: Frame) throws(JSONParseError) -> [String: JSONValue] {
        let count = values.count - frame.valueStart
        guard count <= ShapeTable.maxKeys else { return try buildObject(frame, count) }
        let hash = keys.shapeHash(from: frame.keyStart)
        let slot = shapes.slot(for: hash)
        guard shapes.matches(slot, hash: hash, keys: keys, from: frame.keyStart) else {
            let object = try buildObject(frame, count)
            // Remember the shape (its key numbers only, until it is seen a second time).
            shapes.record(slot, hash: hash, keys: keys, from: frame.keyStart, count: count)
            return object
        }
        let prototype = shapes.prototype(slot, keys: keys, from: frame.keyStart, count: count, names: keyTable.names)
        let start = frame.valueStart
        let values = self.values
        let object = prototype.mapValues { position in values.take(start + position) }
        values.dropTaken(from: start, taken: count)
        keys.dropTaken(from: frame.keyStart, taken: count)
        return object
    }

    /// Builds the object of `frame` key by key, at its final size, and pops its members.
    private mutating func buildObject(_ frame: Frame, _ count: Int) throws(JSONParseError) -> [String: JSONValue] {
        var object = [String: JSONValue](minimumCapacity: count)
        let names = keyTable.names
        for offset in 0..<count {
            let key = keys.take(frame.keyStart + offset)
            if object.updateValue(values.take(frame.valueStart + offset), forKey: names[key.id]) != nil {
                values.dropTaken(from: frame.valueStart, taken: offset + 1)
                keys.dropTaken(from: frame.keyStart, taken: offset + 1)
                index = key.offset
                throw fail(.duplicateKey, "duplicate key \"\(names[key.id])\" in one object")
            }
        }
        values.dropTaken(from: frame.valueStart, taken: count)
        keys.dropTaken(from: frame.keyStart, taken: count)
        return object
    }

    /// Parses `"key" :` onto the key stack, leaving the index at the member's value.
    private mutating func parseKey() throws(JSONParseError) {
        guard index < bytes.count else { throw fail(.unexpectedEnd, "input ended where an object key was expected") }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw fail(.unexpectedByte, "expected a string key, found \(describeByte(bytes[index]))")
        }
        let offset = index
        index += 1
        let start = index
        let ascii = try scanPlainRun()
        if bytes[index] == UInt8(ascii: "\""), index - start <= InternTable.maxLength {
            let entry = keyTable.probe(bytes, start, index)
            if let id = keyTable.hitID(entry) {
                keys.push(PendingKey(id: id, offset: offset))
            } else {
                if !ascii { try validateUTF8(from: start, to: index) }
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                keys.push(PendingKey(id: keyTable.insert(entry, string), offset: offset))
            }
            index += 1
        } else {
            keys.push(PendingKey(id: keyTable.name(try finishString(start: start, ascii: ascii)), offset: offset))
        }
        skipWhitespace()
        guard index < bytes.count else { throw fail(.unexpectedEnd, "input ended where ':' was expected") }
        guard bytes[index] == UInt8(ascii: ":") else {
            throw fail(.unexpectedByte, "expected ':' after an object key, found \(describeByte(bytes[index]))")
        }
        index += 1
    }

    // MARK: - Scalars

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for offset in 0..<count {
            guard index + offset < bytes.count else {
                index += offset
                throw fail(.unexpectedEnd, "input ended inside the literal \(literal)")
            }
            guard bytes[index + offset] == start[offset] else {
                index += offset
                throw fail(.unexpectedByte, "invalid literal: expected \(literal)")
            }
        }
        index += count
    }

    /// Parses a number at the index: `.int` when it has no fraction or exponent and fits.
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw fail(.invalidNumber, "expected a digit in a number")
        }
        // Accumulate as a negative magnitude so that Int.min fits.
        var magnitude = 0
        var overflow = false
        let integerStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw fail(.invalidNumber, "leading zeros are not allowed in a number")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int(bytes[index] &- UInt8(ascii: "0"))
                if !overflow {
                    let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(digit)
                    overflow = o1 || o2
                    magnitude = next
                }
                index += 1
            }
        }
        let integerDigits = index - integerStart
        var isInteger = true
        var fractionStart = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            fractionStart = index
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail(.invalidNumber, "expected a digit after the decimal point")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let fractionDigits = index - fractionStart
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail(.invalidNumber, "expected a digit in the exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) {
                // Only small exponents take the fast path below; a larger one just has to stay large.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger, !overflow {
            if negative { return .int(magnitude) }
            if magnitude != Int.min { return .int(-magnitude) }
        }
        // Fast path (Clinger): at most 15 significant digits and a power of ten up to 10^22 are
        // both exact in a Double, so one multiplication or division rounds correctly, exactly as
        // strtod would.
        if integerDigits + fractionDigits <= 15 {
            var significand = UInt64(-magnitude)
            for position in fractionStart..<(fractionStart + fractionDigits) {
                significand = significand * 10 + UInt64(bytes[position] &- UInt8(ascii: "0"))
            }
            let scale = exponent - fractionDigits
            if scale >= -22, scale <= 22 {
                let value = Double(significand)
                let scaled = scale >= 0 ? value * Self.powersOfTen[scale] : value / Self.powersOfTen[-scale]
                return .double(negative ? -scaled : scaled)
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            let end = index
            index = start
            throw fail(.numberOutOfRange, "number \(text.prefix(40))\(end - start > 40 ? "…" : "") is out of the range of Double")
        }
        return .double(value)
    }

    /// 10^0 through 10^22, each exact in a `Double`.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }

    // MARK: - Strings

    /// Parses a string value at the index (the opening quote), returning its decoded value.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        let ascii = try scanPlainRun()
        guard bytes[index] == UInt8(ascii: "\""), index - start <= InternTable.maxLength else {
            return try finishString(start: start, ascii: ascii)
        }
        let entry = stringTable.probe(bytes, start, index)
        // A hit has the bytes of a string validated before.
        if let interned = stringTable.hit(entry) {
            index += 1
            return interned.string
        }
        if !ascii { try validateUTF8(from: start, to: index) }
        let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        stringTable.insertValue(entry, string)
        index += 1
        return string
    }

    /// Advances the index to the first quote or backslash of the string being scanned, and
    /// answers whether the bytes passed are all ASCII. Throws at a raw control character or at
    /// the end of the input.
    ///
    /// Eight bytes at a time: a word without a special byte (a quote, a backslash, a control
    /// character, or a non-ASCII byte while the run is ASCII so far) is skipped whole, else the
    /// scan jumps to its first special byte. The last few bytes of the input go one by one.
    @inline(__always)
    private mutating func scanPlainRun() throws(JSONParseError) -> Bool {
        var ascii = true
        let base = UnsafeRawPointer(bytes.baseAddress!)
        while true {
            if index + 8 <= bytes.count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let special = ascii ? Self.specialBytes(word) : Self.stopBytes(word)
                if special == 0 {
                    index += 8
                    continue
                }
                index += special.trailingZeroBitCount >> 3
            } else if index >= bytes.count {
                throw fail(.unexpectedEnd, "input ended inside a string")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return ascii }
            if byte < 0x20 { throw fail(.controlCharacter, "raw control character \(describeByte(byte)) in a string") }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
    }

    /// Finishes a string whose plain run from `start` stopped at the index, at a backslash or
    /// at the closing quote (a string too long to intern): decodes escapes into a byte buffer.
    private mutating func finishString(start: Int, ascii: Bool) throws(JSONParseError) -> String {
        if !ascii { try validateUTF8(from: start, to: index) }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(index - start + 16)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            // At a backslash.
            try parseEscape(into: &buffer)
            let runStart = index
            let runASCII = try scanPlainRun()
            if index > runStart {
                if !runASCII { try validateUTF8(from: runStart, to: index) }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: buffer, as: UTF8.self)
            }
        }
    }

    /// Decodes the escape at the index (a backslash) and appends its UTF-8 bytes.
    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONParseError) {
        index += 1
        guard index < bytes.count else { throw fail(.unexpectedEnd, "input ended inside an escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            let escapeStart = index - 2
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    index = escapeStart
                    throw fail(.invalidEscape, "high surrogate \\u\(hex(scalar)) is not followed by a low surrogate")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    index = escapeStart
                    throw fail(.invalidEscape, "high surrogate \\u\(hex(scalar)) is followed by \\u\(hex(low)), not a low surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                index = escapeStart
                throw fail(.invalidEscape, "lone low surrogate \\u\(hex(scalar))")
            }
            appendUTF8(scalar, to: &buffer)
        default:
            index -= 1
            throw fail(.invalidEscape, "invalid escape \\\(describeByte(byte))")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw fail(.unexpectedEnd, "input ended inside a \\u escape") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail(.invalidEscape, "expected 4 hex digits after \\u, found \(describeByte(byte))")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            buffer.append(UInt8(scalar))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | scalar >> 6))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | scalar >> 12))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | scalar >> 18))
            buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Throws `.invalidUTF8` at the first byte of `bytes[from..<to]` that is not well-formed UTF-8.
    private mutating func validateUTF8(from: Int, to end: Int) throws(JSONParseError) {
        var position = from
        while position < end {
            let lead = bytes[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                high = 0x9F
            case 0xF0:
                length = 4
                low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                high = 0x8F
            default:
                index = position
                throw fail(.invalidUTF8, "invalid UTF-8 lead byte \(describeByte(lead)) in a string")
            }
            for offset in 1..<length {
                let continuation = position + offset < end ? bytes[position + offset] : 0
                let (min, max) = offset == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                guard continuation >= min, continuation <= max else {
                    index = position
                    throw fail(.invalidUTF8, "invalid UTF-8 sequence starting with \(describeByte(lead)) in a string")
                }
            }
            position += length
        }
    }

    // MARK: - Helpers

    /// The high bit of every byte of `word` (read little-endian) that is `"`, `\\`, below 0x20
    /// or above 0x7F, up to the first such byte (the classic "has a zero byte" test, applied to
    /// the word XORed with each special byte; its borrows can only mark bytes after a true one).
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        stopBytes(word) | word & 0x8080_8080_8080_8080
    }

    /// As `specialBytes`, without non-ASCII bytes: the scan of a run known to be non-ASCII
    /// (validated as UTF-8 afterwards) stops only where the string's grammar has something to say.
    @inline(__always)
    private static func stopBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highs
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func fail(_ kind: JSONParseError.Kind, _ reason: String) -> JSONParseError {
        JSONParseError(offset: index, kind: kind, reason: reason)
    }

    private func describeByte(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + hex(UInt32(byte), width: 2)
    }

    private func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
