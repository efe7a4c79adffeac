package mcp

// TasksExtensionID names the tasks extension of the stateless era, which
// replaces the session era's core tasks
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning; SEP-2663).
const TasksExtensionID = "io.modelcontextprotocol/tasks"

// tasksExtensionEnabled reports whether the server offers the tasks
// extension to stateless-era clients.
func (s *Server) tasksExtensionEnabled() bool {
	return false
}

// tasksExtensionMethod reports whether method belongs to the tasks
// extension and the server offers it.
func (s *Server) tasksExtensionMethod(method string) bool {
	return false
}
