import TagCore
import TagKit

/// The password side of a write (docs/protected-tags.md): before anything is
/// written, a tag whose writes need a password is authenticated to with the
/// order's — or the write is refused, saying so — and an order to protect a tag
/// that has no password (or without one to set) is refused; after the write,
/// `protect` sets the password. A PC/SC reader's storage-card APDUs have no
/// PWD_AUTH: there, both are refused as unsupported.
enum TagPasswordAccess {
    /// Checks `order` against the tag behind `driver` and authenticates when the tag is
    /// protected; true when it is (its writes need the password before and after).
    static func prepare(_ order: TagWriteOrder, driver: any NDEFTagDriver, tagType: String) throws -> Bool {
        let ntag = (driver as? Type2Driver).flatMap { $0.takesPassword ? $0 : nil }
        if order.protect {
            guard order.password != nil else {
                throw TagJobRefusal(.badRequest, "protecting a tag needs a password: `--password-file FILE`, or `tag_password_file` in the daemon's config")
            }
            guard !order.lock else { throw TagJobRefusal(.badRequest, "a tag made read-only needs no password: ask for protect or lock, not both") }
            guard ntag != nil else {
                throw TagJobRefusal(.unsupported, "only NTAG 213, 215 and 216 take a password; this is a \(TagDriverError.displayName(tagType))")
            }
        }
        guard let ntag else { return false }
        let firstProtectedPage = try ntag.firstPasswordProtectedPage()
        if firstProtectedPage != nil || order.protect, ntag.transport is any StorageCommandsTransport {
            throw TagJobRefusal(
                .unsupported, "this PC/SC reader reaches the \(TagDriverError.displayName(tagType)) with storage-card commands, which cannot send "
                    + "PWD_AUTH: write a password-protected tag, or protect one, through a libnfc reader")
        }
        guard let page = firstProtectedPage else { return false }
        guard let password = order.password else {
            throw TagJobRefusal(
                .passwordProtected, TagDriverError.passwordRequired(tagType: tagType, firstProtectedPage: page).description
                    + "; give the password it was protected with (`--password-file FILE`, or `tag_password_file` in the daemon's config)")
        }
        try ntag.authenticate(password: password.password, pack: password.pack)
        return true
    }

    /// Protects the tag when `order` asks for it (after the message was written and verified).
    static func finish(_ order: TagWriteOrder, driver: any NDEFTagDriver) throws(TagDriverError) {
        guard order.protect, let ntag = driver as? Type2Driver, let password = order.password else { return }
        try ntag.protect(password: password.password, pack: password.pack)
    }
}
