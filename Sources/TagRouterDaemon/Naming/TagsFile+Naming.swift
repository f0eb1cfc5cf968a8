import DaemonControl
import SystemKit
import TagCore
import TagRouter

/// Naming a tag read from a reader, as `tags learn` and the live page both do it:
/// a tag the file knows by its UID is renamed (its groups kept), another gets
/// a new entry; and the other changes `tags` makes (`TagNamesEdit`). Names are checked
/// the same way for all, before anything is written.
extension TagsFile {
    /// What naming a tag changes: the file's new text (nil: nothing to change) and what that did, in a sentence.
    public struct Naming {
        public let text: String?
        public let message: String
    }

    /// The most characters a name may have.
    static let nameLimit = 100

    /// What `edit` changes in the file: its new text (nil: nothing to change) and what that did, in a sentence.
    public func change(_ edit: TagNamesEdit) throws(TagNamesProblem) -> Naming {
        switch edit {
        case .name(let uid, let name, let groups):
            return try naming(uid, as: name, groups: groups)
        case .rename(let old, let new):
            return Naming(text: try renaming(old, to: new), message: "renamed '\(old)' to '\(new)' in \(path)")
        case .forget(let name):
            return Naming(text: try forgetting(name), message: "forgot '\(name)' in \(path)")
        }
    }

    /// The name of the entry listing `uid`, when one does.
    public func name(of uid: TagUID) -> String? {
        entries.first { entry in Self.scalars(entry["uid"]).contains { TagUID($0) == uid } }?["name"]?.scalar
    }

    /// The text naming the tag `uid` `name`: the entry listing it renamed, else a new entry in `groups`.
    func naming(_ uid: TagUID, as name: String, groups: [String]) throws(TagNamesProblem) -> Naming {
        for group in groups {
            try Self.checkPrintable(group, "the group '\(String(String.UnicodeScalarView(group.unicodeScalars.filter(Self.isPrintable))))'")
        }
        guard let known = self.name(of: uid) else {
            return Naming(text: try adding(name: name, uid: uid, groups: groups), message: "added '\(name)' (\(uid.hex)) to \(path)")
        }
        guard name != known else { return Naming(text: nil, message: "the tag is already called '\(name)'; nothing written") }
        return Naming(text: try renaming(known, to: name), message: "renamed '\(known)' to '\(name)' in \(path)")
    }

    /// The scalars of a one-or-many value (`uid: a` or `uid: [a, b]`).
    public static func scalars(_ node: ConfigNode?) -> [String] {
        guard let node else { return [] }
        return node.elements?.compactMap(\.scalar) ?? node.scalar.map { [$0] } ?? []
    }

    /// Refuses a name that is empty, longer than `nameLimit`, holds a control or formatting
    /// character, or is used by another entry.
    func check(newName name: String) throws(TagNamesProblem) {
        if name.trimmingWhitespace().isEmpty { throw .usage("a tag needs a name; type one") }
        try Self.checkPrintable(name, "the name")
        if name.count > Self.nameLimit { throw .usage("the name has \(name.count) characters; a tag name has at most \(Self.nameLimit)") }
        if entries.contains(where: { $0["name"]?.scalar == name }) { throw .usage("the name '\(name)' is already used in \(path); pick another") }
    }

    /// Refuses `text` when it holds a control or formatting character: an escape sequence or a bidi
    /// override would rewrite the terminal of whoever lists the tags, or reorder what the page shows.
    static func checkPrintable(_ text: String, _ what: String) throws(TagNamesProblem) {
        guard text.unicodeScalars.allSatisfy(isPrintable) else {
            throw .usage("\(what) holds a control or formatting character (an escape sequence, a bidi override); use letters, digits, spaces and punctuation")
        }
    }

    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        ![.control, .format].contains(scalar.properties.generalCategory)
    }

    /// Groups as typed (`family, guests`): split at commas, trimmed, empty ones left out.
    public static func groups(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}
