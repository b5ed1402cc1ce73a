package placement

// GmailAR is gmailAR for the external tests (package placement_test),
// which run the checker against placementsim's servers.
const GmailAR = gmailAR
