package detect

import "testing"

// TestMayBypassPassesEveryBypass: the cheap test lets through every
// command line the bypass expression matches, in any case; it only skips
// lines that cannot match.
func TestMayBypassPassesEveryBypass(t *testing.T) {
	for _, s := range []string{
		"curl --noproxy '*' https://x", "NO_PROXY=* curl x", "No_Proxy=* wget x", "unset HTTPS_PROXY; curl x",
		"unset  all_proxy", "env -u http_proxy curl x", "env -uHTTP_PROXY curl", "p pp PROXY_x=1 unset Https_Proxy",
		"curl https://x", "pip install -r requirements.txt", "ls -la /proc", "", "p", "prox", "echo pRoXy",
	} {
		if bypassRe.MatchString(s) && !mayBypass(s) {
			t.Errorf("%q: the expression matches, the cheap test says no", s)
		}
	}
	if mayBypass("pip install -r requirements.txt") || mayBypass("prox") {
		t.Error("the cheap test passes lines that name no proxy")
	}
}
