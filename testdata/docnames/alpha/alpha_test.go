package alpha_test

// Helper is a test's, and counts as package alpha's.
func Helper() {}
