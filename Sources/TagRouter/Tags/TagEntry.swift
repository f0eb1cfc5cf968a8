import TagCore

/// One entry of `tags:`, compiled: a name for a tag known by its UIDs, its Home
/// Assistant tag ids, and/or conditions on its content, with the groups it is in.
public struct TagEntry: Sendable {
    public let name: String
    public let groups: [String]
    let uids: [TagUID]
    let tagIDs: [String]
    /// Conditions on the content (`uri`, `text`, `record`…); nil when the entry has none.
    let content: Matcher?
    /// The tag counts as this entry only when its SUN message is verified (`require_sun`).
    let requiresSUN: Bool
    /// The tag counts as this entry only when its originality signature is NXP's (`require_genuine`).
    let requiresGenuine: Bool
    public let mark: SourceMark

    /// The keys of `match:` that look at a tag's content, the ones a tag entry takes.
    static let contentKeys: Set = ["uri", "uri_regex", "text", "text_regex", "mime", "record", "json", "records"]

    /// The options of one entry.
    static let spec = OptionSpec("one named tag: an event of it carries `tag.name` and `tag.groups`", [
        Option("name", .string, required: true, "the name events carry in `tag.name`, routes match with `tag:` and templates show as `{{tag.name}}`; unique"),
        Option("uid", .oneOrMany(.string), "the tag's UID(s), in any spelling (`04:A2:24…`, `04a224…`, `04-A2-24…`)"),
        Option("tag_id", .oneOrMany(.string), "the Home Assistant tag id(s) of a tag written by HA (`https://www.home-assistant.io/tag/<id>`)"),
        Option("match", .section(OptionSpec("conditions on the tag's content", MatchSpec.spec.options.filter { contentKeys.contains($0.name) })),
            "conditions on the content, as in a route's `match` (`uri`, `text`, `record`…): a tag whose content meets them has this name"),
        Option("groups", .list(.string), default: "[]", "groups the tag is in, for `match: {group: …}`"),
        Option("require_sun", .bool, default: "false",
            "the tag has this name only when its SUN message is verified (`sun:`): a clone with the same UID, or a copied URL, stays unknown"),
        Option("require_genuine", .bool, default: "false",
            "the tag has this name only when its NXP originality signature is valid (`tag.genuine: true`): a plain clone stays unknown, a magic card replaying a copied signature does not"),
    ])

    /// Compiles a validated entry; a UID that does not parse is reported at its position.
    init(_ value: ConfigValue) throws(ConfigErrors) {
        var errors = ConfigErrors()
        name = value.optionalString("name") ?? ""
        groups = value.strings("groups")
        requiresSUN = value.bool("require_sun")
        requiresGenuine = value.bool("require_genuine")
        tagIDs = value.optionalStrings("tag_id") ?? []
        var uids: [TagUID] = []
        for (index, text) in (value.optionalStrings("uid") ?? []).enumerated() {
            guard let uid = TagUID(text) else {
                let node = value.child("uid")?.node
                let at = node?.elements?[index].mark ?? node?.mark ?? value.mark
                errors.append(ConfigError(mark: at, path: "\(value.path).uid", message: TagUID.problem(text) ?? "'\(text)' is not a tag UID"))
                continue
            }
            uids.append(uid)
        }
        self.uids = uids
        do {
            content = value.has("match") ? try Matcher(value.section("match")) : nil
        } catch {
            errors.append(contentsOf: error)
            content = nil
        }
        mark = value.mark
        if uids.isEmpty && tagIDs.isEmpty && content == nil && !value.has("uid") {
            errors.append(contentsOf: value.error(nil, "tag '\(name)' needs a `uid`, a `tag_id` or a `match` to be recognised by"))
        }
        if !errors.isEmpty { throw errors }
    }
}
