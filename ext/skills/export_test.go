package skills

// CompareFrontmatter exposes compareFrontmatter to the tests.
var CompareFrontmatter = compareFrontmatter
