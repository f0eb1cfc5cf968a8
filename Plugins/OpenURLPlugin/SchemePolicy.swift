/// Which URIs may be opened: only those whose scheme is on the allow list. The
/// scheme is read strictly (RFC 3986: a letter, then letters, digits, `+`, `-`,
/// `.`, then `:`), compared without case, and a URI with control characters or
/// inner whitespace is refused outright, so `JaVaScRiPt:`, ` javascript:`,
/// `java\tscript:` or `\u{0}file:` cannot slip past the list to an opener
/// that reads it more leniently.
struct SchemePolicy: Sendable {
    /// Lowercase scheme names.
    let allowed: Set<String>

    /// The longest URI opened; tags hold far less.
    static let maxLength = 8192

    init(allowing schemes: [String]) {
        allowed = Set(schemes.map { $0.lowercased() })
    }

    /// Why a URI is not opened.
    enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        case tooLong(Int)
        case controlCharacter(offset: Int)
        case noScheme
        case notAllowed(scheme: String)

        var description: String {
            switch self {
            case .empty: return "the event has no URI"
            case .tooLong(let length): return "the URI is \(length) characters long (at most \(SchemePolicy.maxLength))"
            case .controlCharacter(let offset): return "the URI has a control character or whitespace at character \(offset + 1)"
            case .noScheme: return "the URI does not start with a scheme such as https:"
            case .notAllowed(let scheme): return "the scheme '\(scheme)' is not in open.allow_schemes"
            }
        }
    }

    /// The lowercase scheme of `uri` when it may be opened.
    func check(_ uri: String) throws(Refusal) -> String {
        guard !uri.isEmpty else { throw .empty }
        let scalars = Array(uri.unicodeScalars)
        guard scalars.count <= Self.maxLength else { throw .tooLong(scalars.count) }
        if let offset = scalars.firstIndex(where: Self.isForbidden) { throw .controlCharacter(offset: offset) }
        guard let colon = scalars.firstIndex(of: ":"), colon > 0 else { throw .noScheme }
        let scheme = scalars[..<colon]
        guard let first = scheme.first, Self.isLetter(first), scheme.allSatisfy(Self.isSchemeCharacter) else { throw .noScheme }
        let name = String(String.UnicodeScalarView(scheme)).lowercased()
        guard allowed.contains(name) else { throw .notAllowed(scheme: name) }
        return name
    }

    /// C0 and C1 controls, DEL, and every kind of whitespace (Unicode's too).
    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x21 || (0x7f...0x9f).contains(scalar.value) || scalar.properties.isWhitespace
            || scalar.properties.generalCategory == .format
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isSchemeCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isLetter(scalar) || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "."
    }
}
