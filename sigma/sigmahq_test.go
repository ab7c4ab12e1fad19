package sigma

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/attribution/attributiontest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// sigmahq says what cordon does with each rule copied from SigmaHQ
// (testdata/sigmahq/SOURCE.md): "" loads, unfed+reason loads and can
// never fire (Set.Unfed), else the refusal's reason.
const unfed = "unfed: "

var sigmahq = map[string]string{
	"proxy_download_susp_dyndns.yml":                                         "",
	"proxy_download_susp_tlds_blacklist.yml":                                 "",
	"proxy_download_susp_tlds_whitelist.yml":                                 "",
	"proxy_downloadcradle_webdav.yml":                                        "",
	"proxy_f5_tm_utility_bash_api_request.yml":                               "",
	"proxy_hello_world_user_agent.yml":                                       "",
	"proxy_hktl_baby_shark_default_agent_url.yml":                            "",
	"proxy_hktl_cobalt_strike_malleable_c2_requests.yml":                     `field "cs-cookie" is not mapped`,
	"proxy_hktl_empire_ua_uri_patterns.yml":                                  "",
	"proxy_pua_advanced_ip_scanner_update_check.yml":                         "",
	"proxy_pwndrop.yml":                                                      "",
	"proxy_raw_paste_service_access.yml":                                     "",
	"proxy_susp_flash_download_loc.yml":                                      "",
	"proxy_susp_ipfs_cred_harvest.yml":                                       "",
	"proxy_telegram_api.yml":                                                 "",
	"proxy_ua_apt.yml":                                                       "",
	"proxy_ua_base64_encoded.yml":                                            "",
	"proxy_ua_bitsadmin_susp_ip.yml":                                         "",
	"proxy_ua_bitsadmin_susp_tld.yml":                                        "",
	"proxy_ua_cryptominer.yml":                                               "",
	"proxy_ua_empty.yml":                                                     "",
	"proxy_ua_frameworks.yml":                                                "",
	"proxy_ua_hacktool.yml":                                                  "",
	"proxy_ua_malware.yml":                                                   "",
	"proxy_ua_powershell.yml":                                                "",
	"proxy_ua_rclone.yml":                                                    "",
	"proxy_ua_susp.yml":                                                      "",
	"proxy_ua_susp_base64.yml":                                               "",
	"proxy_webdav_external_execution.yml":                                    "",
	"proc_creation_lnx_base64_decode.yml":                                    "",
	"proc_creation_lnx_clear_logs.yml":                                       "",
	"proc_creation_lnx_cp_passwd_or_shadow_tmp.yml":                          "",
	"proc_creation_lnx_crontab_enumeration.yml":                              "",
	"proc_creation_lnx_crypto_mining.yml":                                    "",
	"proc_creation_lnx_curl_usage.yml":                                       "",
	"proc_creation_lnx_curl_wget_exec_tmp.yml":                               "",
	"proc_creation_lnx_git_shell_execution.yml":                              "",
	"proc_creation_lnx_netcat_reverse_shell.yml":                             "",
	"proc_creation_lnx_nohup.yml":                                            "",
	"proc_creation_lnx_omigod_scx_runasprovider_executescript.yml":           `field "LogonId" is not mapped`,
	"proc_creation_lnx_pua_trufflehog.yml":                                   "",
	"proc_creation_lnx_python_http_server_execution.yml":                     "",
	"proc_creation_lnx_python_pty_spawn.yml":                                 "",
	"proc_creation_lnx_python_reverse_shell.yml":                             "",
	"proc_creation_lnx_rsync_shell_spawn.yml":                                "",
	"proc_creation_lnx_schedule_task_job_cron.yml":                           "",
	"proc_creation_lnx_ssh_shell_execution.yml":                              "",
	"proc_creation_lnx_susp_container_residence_discovery.yml":               "",
	"proc_creation_lnx_susp_curl_fileupload.yml":                             "",
	"proc_creation_lnx_susp_curl_useragent.yml":                              "",
	"proc_creation_lnx_susp_dockerenv_recon.yml":                             "",
	"proc_creation_lnx_susp_history_delete.yml":                              "",
	"proc_creation_lnx_susp_interactive_bash.yml":                            "",
	"proc_creation_lnx_susp_java_children.yml":                               "",
	"proc_creation_lnx_susp_script_interpretor_spawn_credential_scanner.yml": "",
	"proc_creation_lnx_susp_sensitive_file_access.yml":                       "",
	"proc_creation_lnx_susp_shell_child_process_from_parent_tmp_folder.yml":  "",
	"proc_creation_lnx_webshell_detection.yml":                               "",
	"file_event_lnx_doas_conf_creation.yml":                                  "",
	"file_event_lnx_persistence_sudoers_files.yml":                           "",
	"file_event_lnx_susp_cron_file_created.yml":                              "",
	"file_event_lnx_susp_filename_with_embedded_base64_command.yml":          "",
	"file_event_lnx_susp_shell_script_under_profile_directory.yml":           "",
	"file_event_lnx_triple_cross_rootkit_lock_file.yml":                      "",
	"file_event_lnx_triple_cross_rootkit_persistence.yml":                    "",
	"file_event_lnx_wget_download_file_in_tmp_dir.yml":                       "",
	"net_connection_lnx_back_connect_shell_dev.yml":                          "",
	"net_connection_lnx_crypto_mining_indicators.yml":                        unfed + `no source cordon reads writes dst_host`,
	"net_connection_lnx_ngrok_tunnel.yml":                                    unfed + `no source cordon reads writes dst_host`,
}

func TestSigmaHQRulesLoadOrAreRefused(t *testing.T) {
	set, err := Load(nil, "testdata/sigmahq")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range set.Rules {
		got[filepath.Base(strings.Split(r.Origin, ":")[0])] = ""
	}
	for _, r := range set.Unfed {
		got[filepath.Base(r.File)] = unfed + r.Reason
	}
	for _, r := range set.Refused {
		got[filepath.Base(r.File)] = r.Reason
	}
	if len(got) != len(sigmahq) {
		t.Errorf("%d rules read, want %d", len(got), len(sigmahq))
	}
	for file, want := range sigmahq {
		reason, ok := got[file]
		switch {
		case !ok:
			t.Errorf("%s: neither loaded nor refused", file)
		case want == "" && reason != "":
			t.Errorf("%s: %s, want it loaded", file, reason)
		case want != "" && (!strings.Contains(reason, strings.TrimPrefix(want, unfed)) ||
			strings.HasPrefix(want, unfed) != strings.HasPrefix(reason, unfed)):
			t.Errorf("%s: %q, want %q", file, reason, want)
		}
	}
}

// sampleFindings runs the SigmaHQ rules and cordon's own Sigma test rules
// over an attributed sample incident.
func sampleFindings(t *testing.T, set *Set, name string) []detect.Finding {
	evs := attributiontest.Sample(t, name)
	attribution.AttributeAll(evs)
	return scan(t, set.Rules, evs)
}

func TestSigmaRulesOnSamples(t *testing.T) {
	set, err := Load(nil, "testdata/sigmahq", "testdata/cordon")
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ sample, agent, title, severity string }
	for _, w := range []want{
		// the egress sample's CONNECT pastebin.com:443, by its host
		{"egress-probe-exfil", "agent-7", "Connection to a Paste Service", "high"},
		{"credential-theft", "agent-12", "Cloud Credentials File Read by a Shell Tool", "high"},
		{"persistence-after-kill", "agent-21", "Nohup Execution", "medium"},
		{"persistence-after-kill", "agent-21", "New Cron File Created", "low"},
		{"persistence-after-kill", "agent-21", "Crontab Enumeration", "low"},
	} {
		found := false
		for _, f := range sampleFindings(t, set, w.sample) {
			if f.Agent == w.agent && f.Title == w.title {
				found = true
				if f.Severity != w.severity || !strings.Contains(f.Explanation, "Sigma "+w.title) {
					t.Errorf("%s: %+v: want severity %s and the title in the explanation", w.sample, f, w.severity)
				}
			}
		}
		if !found {
			t.Errorf("%s: no finding %q about %s", w.sample, w.title, w.agent)
		}
	}
	// the busy benign agents do what developers do: nothing above low but
	// the test web server one of them starts, which the rule names among
	// its false positives ("testing or development activity")
	for _, f := range sampleFindings(t, set, "busy-benign") {
		if detect.SeverityRank(f.Severity) > detect.SeverityRank("low") && f.Title != "Python WebServer Execution - Linux" {
			t.Errorf("busy-benign: %s %s %s", f.Agent, f.Title, f.Severity)
		}
	}
}

// The same rules through a real index: the store answers the pipeline's
// query, the filter the rest; the findings are those of the in-memory run.
func TestSigmaRulesOnIndex(t *testing.T) {
	set, err := Load(nil, "testdata/sigmahq", "testdata/cordon")
	if err != nil {
		t.Fatal(err)
	}
	evs := attributiontest.Sample(t, "persistence-after-kill")
	attribution.AttributeAll(evs)
	mem := scan(t, set.Rules, evs)
	st := attributiontest.Indexed(t, evs)
	res, err := (&detect.Engine{Rules: set.Rules}).Scan(context.Background(), evidence.StoreSource{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	key := func(fs []detect.Finding) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID+" "+f.Detector+" "+strings.Join(f.Events, ","))
		}
		return strings.Join(out, "\n")
	}
	if len(mem) == 0 || key(res.Findings) != key(mem) {
		t.Errorf("index findings:\n%s\nin memory:\n%s", key(res.Findings), key(mem))
	}
}
