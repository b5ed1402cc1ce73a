package netguard

// CheckHost applies to the host of a URL the rules that need no
// resolution, the ones every connection of the guard's client applies
// again when it dials: not the service itself, ASCII, a valid name with a
// domain and outside the special-use names, or a literal address the
// guard allows (inet_aton spellings included). It returns a *Refusal
// saying which rule refused it. A name that passes may still resolve to an
// internal address: that is refused when connecting. It lets a check that
// may not resolve (a pipeline's validation) refuse early what the fetch
// would refuse later, with the same reason.
func (g *Guard) CheckHost(host string) error {
	host = normalHost(host)
	a, isLiteral, err := g.hostRules(host)
	if err != nil || !isLiteral {
		return err
	}
	_, err = g.checkLiteral(host, a)
	return err
}
