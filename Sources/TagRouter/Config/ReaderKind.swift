import TagCore

/// The config half of a reader driver (TagReader's `ReaderDriver` adds the
/// running reader): which `device:` strings it takes, the keys only its readers
/// read, and the checks only it can make. The router validates `readers:`
/// entries through the kinds its registry holds and knows none by name.
public protocol ReaderKind: Sendable {
    /// What starts a device string of this kind, without the colon (`pcsc` for
    /// `pcsc:ACS ACR1252*`); nil for the one kind that takes every device no
    /// other kind claims (libnfc's connstrings and `auto`).
    static var scheme: String? { get }
    /// The kind as people name it in messages and docs (`libnfc`, `PC/SC`).
    static var title: String { get }
    /// How a `device:` of this kind is written, for the reference and `--help`
    /// (`a PC/SC reader through pcscd: \`pcsc:auto\` …`).
    static var deviceHelp: String { get }
    /// Keys only this kind's readers read, beside every reader's (`ReaderConfig.spec`);
    /// a reader of another kind that sets one gets a warning. None by default.
    static var options: [Option] { get }
    /// Reads this kind's own keys into `reader` and reports what the spec cannot
    /// catch (a setting this kind cannot honour is a warning). Nothing by default.
    static func load(_ value: ConfigValue, into reader: inout ReaderConfig, _ errors: inout ConfigErrors)
}

extension ReaderKind {
    public static var options: [Option] { [] }
    public static func load(_ value: ConfigValue, into reader: inout ReaderConfig, _ errors: inout ConfigErrors) {}

    /// Whether `device` starts with this kind's scheme (`pcsc:`); false for the fallback kind.
    public static func claims(_ device: String) -> Bool {
        guard let scheme else { return false }
        return device.hasPrefix(scheme + ":")
    }
}

/// The reader kinds a config may use, in the order `devices` and the reference
/// show them: each `device:` belongs to the kind whose scheme starts it, else to
/// the one fallback kind (the one without a scheme). The one place a device
/// string's prefix is looked at.
public struct ReaderKinds: Sendable {
    public let kinds: [any ReaderKind.Type]

    /// `kinds` must hold at most one kind without a scheme, and no scheme twice.
    public init(_ kinds: [any ReaderKind.Type]) {
        assert(kinds.filter { $0.scheme == nil }.count <= 1, "more than one reader kind without a scheme")
        let schemes = kinds.compactMap { $0.scheme }
        assert(Set(schemes).count == schemes.count, "a reader scheme is declared twice")
        self.kinds = kinds
    }

    /// The position in `kinds` of the kind `device` belongs to; nil when none takes it
    /// (only when the registry has no fallback kind).
    public func index(for device: String) -> Int? {
        kinds.firstIndex { $0.claims(device) } ?? kinds.firstIndex { $0.scheme == nil }
    }

    /// The kind `device` belongs to.
    public func kind(for device: String) -> (any ReaderKind.Type)? { index(for: device).map { kinds[$0] } }

    /// What `device:` means: every kind's way of writing one.
    public var deviceHelp: String { kinds.map { $0.deviceHelp }.joined(separator: "; or ") }

    /// Every kind's own options, for the `readers:` spec.
    public var options: [Option] { kinds.flatMap { $0.options } }
}
