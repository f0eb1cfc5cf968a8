import TagKit

/// A transport that reaches a tag only through a reader's storage-card commands
/// (PC/SC's READ and UPDATE BINARY), so a command such as PWD_AUTH cannot be
/// sent through it: a job that needs one is refused (`TagPasswordAccess`).
package protocol StorageCommandsTransport: TagTransport {}
