package mcp

// OnClose arranges for f to run once the session has closed: in the call
// to Close that closes it, after Done is closed and before Close returns,
// or at once if the session is already closed. Functions run in the order
// they were registered. What a program does after Close returns, such as
// flushing telemetry, so sees what f did; a call to Close that finds the
// session already closing returns without waiting for f. f must not
// block for long: the transport closing the session waits for it.
func (ss *ServerSession) OnClose(f func()) {
	ss.mu.Lock()
	if !ss.closed {
		ss.onClose = append(ss.onClose, f)
		ss.mu.Unlock()
		return
	}
	ss.mu.Unlock()
	f()
}

// runOnClose runs, once, the functions OnClose registered.
func (ss *ServerSession) runOnClose() {
	ss.mu.Lock()
	fs := ss.onClose
	ss.onClose = nil
	ss.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// OnClose arranges for f to run once the session has ended, by Close or
// because the server closed the connection: when its read loop stops,
// before Done is closed and before Close and Wait return, or at once if
// the session has already ended. Functions run in the order they were
// registered. What a program does after Close returns, such as flushing
// telemetry, so sees what f did. f must not call Close or Wait, which
// wait for it, nor block for long.
func (cs *ClientSession) OnClose(f func()) {
	cs.onCloseMu.Lock()
	if !cs.ended {
		cs.onClose = append(cs.onClose, f)
		cs.onCloseMu.Unlock()
		return
	}
	cs.onCloseMu.Unlock()
	f()
}

// runOnClose marks the session ended and runs the functions OnClose
// registered.
func (cs *ClientSession) runOnClose() {
	cs.onCloseMu.Lock()
	cs.ended = true
	fs := cs.onClose
	cs.onClose = nil
	cs.onCloseMu.Unlock()
	for _, f := range fs {
		f()
	}
}
