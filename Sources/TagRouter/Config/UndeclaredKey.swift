/// Code read a key that its section's spec does not declare: a mistake in the
/// reading code (a typo, an option renamed in one place only), never in the
/// config. `ConfigValue`'s getters trap on it in debug builds.
public struct UndeclaredKey: Error, Equatable, CustomStringConvertible {
    /// The key that was read.
    public var key: String
    /// Where the section is in the document (`mqtt`, `routes[0].actions[1].webhook`); empty for the top level.
    public var section: String
    /// The keys the spec declares.
    public var declared: [String]

    public var description: String {
        "reading undeclared key '\(key)' of \(section.isEmpty ? "the top level" : "section '\(section)'"); its spec declares "
            + declared.joined(separator: ", ") + " (declare the option in the spec, or fix the key)"
    }
}
