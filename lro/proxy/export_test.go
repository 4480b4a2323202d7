package proxy

// FastCalls returns how many calls p's fast path answered itself.
func FastCalls(p *Proxy) int64 { return p.fastCalls.Load() }
