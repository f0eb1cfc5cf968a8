import SecureTags
import TagCore
import TagKit

/// Reads an identified tag's NDEF message through the TagKit driver for its
/// type, and its originality signature; each reader driver identifies the tag
/// its own way first (libnfc from anticollision, PC/SC from the ATR).
package enum TagInspector {
    /// A tag identified and ready for its driver.
    package struct Identified {
        package var info: TagInfo
        package var driver: (any NDEFTagDriver)?

        package init(info: TagInfo, driver: (any NDEFTagDriver)?) {
            self.info = info
            self.driver = driver
        }
    }

    /// Reads an identified tag's NDEF message through its driver (libnfc and PC/SC
    /// alike), then its originality signature when it has one and `signature` asks for it.
    package static func read(_ tag: Identified, signature: Bool = true) -> TagReadout {
        var readout = readNDEF(tag)
        if signature, TagIdentity.hasOriginalitySignature(readout.info.type), let driver = tag.driver as? Type2Driver {
            // Last, so that a chip which NAKs READ_SIG (and goes idle) has been read already; one exchange.
            if readout.ndefError != TagReadout.removedDuringRead { readout.info.signature = try? driver.originalitySignature() }
            readout.info.genuine = OriginalityCheck.verdict(uid: readout.info.uid, signature: readout.info.signature)
        }
        return readout
    }

    private static func readNDEF(_ tag: Identified) -> TagReadout {
        guard let driver = tag.driver else {
            return TagReadout(info: tag.info, ndefError: "tagrouter reads no NDEF from \(tag.info.type) tags")
        }
        var info = tag.info
        do {
            let content = try driver.read()
            info.ndefCapacity = content.capacity
            info.writable = content.writable
            var readout = TagReadout(info: info)
            if let message = content.message { readout.decode(message: message) }
            return readout
        } catch {
            return TagReadout(info: info, ndefError: error.description)
        }
    }
}
