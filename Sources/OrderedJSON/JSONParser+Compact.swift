/// Recognising text that a compact `JSONWriter` would write byte for byte, without
/// building its value (`JSONReader.lazyValue()`). Anything else — white space, an
/// escape the writer does not use, a fraction or exponent, `-0`, a repeated key,
/// more than `compactMembers` members in one object, invalid JSON — is declined,
/// and `value()` reads the text (and reports what is wrong with it).
extension JSONParser {
    /// The most members an object may have to be kept as text (its keys are
    /// compared on the stack).
    static let compactMembers = 32

    /// Moves past the next value and returns true when its text is compact as the
    /// writer writes it; otherwise stays where it was and returns false.
    mutating func skipCompactValue() -> Bool {
        let (start, startDepth) = (position, depth)
        if compactValue() { return true }
        (position, depth) = (start, startDepth)
        return false
    }

    private mutating func compactValue() -> Bool {
        switch current ?? 0 {
        case UInt8(ascii: "{"): return compactObject()
        case UInt8(ascii: "["): return compactArray()
        case UInt8(ascii: "\""): return compactString()
        case UInt8(ascii: "t"): return compactLiteral("true")
        case UInt8(ascii: "f"): return compactLiteral("false")
        case UInt8(ascii: "n"): return compactLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return compactInteger()
        default: return false
        }
    }

    private mutating func compactLiteral(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= input.count else { return false }
        for offset in 0..<count where input[position + offset] != word.utf8Start[offset] { return false }
        position += count
        return true
    }

    /// Opens a container: false when it would nest deeper than `value()` allows.
    private mutating func compactEnter() -> Bool {
        depth += 1
        position += 1
        return depth <= JSONValue.maximumDepth
    }

    private mutating func compactObject() -> Bool {
        guard compactEnter() else { return false }
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return true
        }
        let closed = withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: Self.compactMembers) { keys -> Bool in
            var count = 0
            while true {
                guard current == UInt8(ascii: "\""), count < keys.count else { return false }
                let keyStart = position + 1
                guard compactString() else { return false }
                let key = keyStart..<(position - 1)
                for earlier in 0..<count where input[keys[earlier]].elementsEqual(input[key]) { return false }
                keys.initializeElement(at: count, to: key)
                count += 1
                guard current == UInt8(ascii: ":") else { return false }
                position += 1
                guard compactValue() else { return false }
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return true
                default: return false
                }
            }
        }
        depth -= 1
        return closed
    }

    private mutating func compactArray() -> Bool {
        guard compactEnter() else { return false }
        defer { depth -= 1 }
        if current == UInt8(ascii: "]") {
            position += 1
            return true
        }
        while true {
            guard compactValue() else { return false }
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return true
            default: return false
            }
        }
    }

    /// A string whose only escapes are the writer's: `\"`, `\\`, `\n`, `\r`, `\t`,
    /// and `\u00xx` (lowercase) for the other control characters; valid UTF-8.
    private mutating func compactString() -> Bool {
        position += 1
        let start = position
        var ascii = true
        while true {
            if !skipPlainBytes() { ascii = false }
            guard let byte = current else { return false }
            if byte == UInt8(ascii: "\"") {
                if !ascii, String(validating: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self) == nil { return false }
                position += 1
                return true
            }
            // A control character (the writer escapes it) or an escape.
            guard byte == UInt8(ascii: "\\"), position + 1 < input.count else { return false }
            switch input[position + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                position += 2
            case UInt8(ascii: "u"):
                guard position + 6 <= input.count, input[position + 2] == UInt8(ascii: "0"), input[position + 3] == UInt8(ascii: "0"),
                      let high = Self.lowercaseHexDigit(input[position + 4]), let low = Self.lowercaseHexDigit(input[position + 5]),
                      case let scalar = high << 4 | low, scalar < 0x20, scalar != 0x09, scalar != 0x0A, scalar != 0x0D
                else { return false }
                position += 6
            default:
                return false
            }
        }
    }

    private static func lowercaseHexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// An integer as the writer writes an `.int`: no leading zero, no fraction or
    /// exponent, not `-0` (which reads as a double), within `Int64`.
    private mutating func compactInteger() -> Bool {
        let negative = current == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        var magnitude: UInt64 = 0
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflow || carry { return false }
            magnitude = sum
            position += 1
        }
        let digitCount = position - digitsStart
        guard digitCount > 0, digitCount == 1 || input[digitsStart] != UInt8(ascii: "0") else { return false }
        if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
        return negative ? magnitude != 0 && magnitude <= UInt64(Int64.max) + 1 : magnitude <= UInt64(Int64.max)
    }
}
