package audit

// Names the external tests read that are not part of the API.
var SensitiveKey = sensitiveKey

var (
	RootHash       = rootHash
	SigningPayload = signingPayload
)

const TimeLayout = timeLayout
