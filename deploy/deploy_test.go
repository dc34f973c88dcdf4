// Package deploy holds gofio's deployment recipes (Kubernetes, Slurm,
// Ansible, a Dockerfile). It is its own module so that the Kubernetes API
// types its tests decode the manifests into stay out of gofio's module.
package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes a manifest into the API type of its kind, refusing
// unknown and duplicate fields, so that a typo'd field fails.
func decodeStrict(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(b, &head); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var obj any
	switch head.APIVersion + "/" + head.Kind {
	case "v1/ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1/PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	case "batch/v1/Job":
		obj = &batchv1.Job{}
	case "apps/v1/DaemonSet":
		obj = &appsv1.DaemonSet{}
	default:
		t.Fatalf("%s: no test type for %s %s", path, head.APIVersion, head.Kind)
	}
	if err := yaml.UnmarshalStrict(b, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}

// TestManifestsStrict loads every Kubernetes manifest into the real API
// types and checks what the fleet recipe relies on.
func TestManifestsStrict(t *testing.T) {
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("manifests: %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			switch o := decodeStrict(t, f).(type) {
			case *batchv1.Job:
				checkPodSpec(t, f, &o.Spec.Template.Spec, o.Name == "gofio-fleet")
				if o.Name == "gofio-fleet" {
					if o.Spec.CompletionMode == nil || *o.Spec.CompletionMode != batchv1.IndexedCompletion {
						t.Error("the fleet Job is not Indexed")
					}
					if a := o.Spec.Template.Spec.Affinity; a == nil || a.PodAntiAffinity == nil ||
						len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
						t.Error("no pod anti-affinity: two clients could share a node")
					}
				}
			case *appsv1.DaemonSet:
				checkPodSpec(t, f, &o.Spec.Template.Spec, true)
			case *corev1.ConfigMap:
				if !strings.Contains(o.Data["fleet.fio"], "ioengine=io_uring") {
					t.Error("the job file does not use io_uring")
				}
			}
		})
	}
}

// checkPodSpec checks a client pod: the seccomp profile that lets io_uring
// through, IPC_LOCK for memlock, and the fleet environment.
func checkPodSpec(t *testing.T, file string, spec *corev1.PodSpec, client bool) {
	t.Helper()
	if !client {
		return
	}
	sc := spec.SecurityContext
	if sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeLocalhost ||
		sc.SeccompProfile.LocalhostProfile == nil || !strings.HasSuffix(*sc.SeccompProfile.LocalhostProfile, "seccomp-io_uring.json") {
		t.Errorf("%s: the pod does not name the io_uring seccomp profile", file)
	}
	c := spec.Containers[0]
	if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil || len(c.SecurityContext.Capabilities.Add) == 0 ||
		c.SecurityContext.Capabilities.Add[0] != "IPC_LOCK" {
		t.Errorf("%s: no IPC_LOCK for memlock", file)
	}
	env := map[string]bool{}
	for _, e := range c.Env {
		env[e.Name] = true
	}
	for _, k := range []string{"START_AT", "RUN_ID", "NODE_NAME", "JOB_FILE", "TARGET", "RESULTS"} {
		if !env[k] {
			t.Errorf("%s: env lacks %s", file, k)
		}
	}
}

// TestSeccompProfile checks the profile is valid JSON that leaves io_uring
// allowed.
func TestSeccompProfile(t *testing.T) {
	b, err := os.ReadFile("kubernetes/seccomp-io_uring.json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		DefaultAction string `json:"defaultAction"`
		Syscalls      []struct {
			Names  []string `json:"names"`
			Action string   `json:"action"`
		} `json:"syscalls"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil && !strings.Contains(err.Error(), "errnoRet") && !strings.Contains(err.Error(), "architectures") {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Syscalls {
		for _, n := range s.Names {
			if strings.HasPrefix(n, "io_uring") && s.Action != "SCMP_ACT_ALLOW" {
				t.Errorf("%s is %s", n, s.Action)
			}
		}
	}
	if p.DefaultAction != "SCMP_ACT_ALLOW" {
		t.Errorf("defaultAction %s would need an io_uring allow rule", p.DefaultAction)
	}
}

// TestAnsiblePlaybook checks the playbook is YAML with the plays the fleet
// needs.
func TestAnsiblePlaybook(t *testing.T) {
	b, err := os.ReadFile("ansible/gofio-fleet.yml")
	if err != nil {
		t.Fatal(err)
	}
	var plays []map[string]any
	if err := yaml.Unmarshal(b, &plays); err != nil {
		t.Fatal(err)
	}
	if len(plays) != 2 {
		t.Fatalf("%d plays, want run + merge", len(plays))
	}
	text := string(b)
	for _, w := range []string{"--start-at=", "--run-id=", "--hostname=", "ansible.builtin.fetch", "gofio merge -o"} {
		if !strings.Contains(text, w) {
			t.Errorf("playbook lacks %q", w)
		}
	}
}

// TestShellScripts runs bash -n (sh -n for /bin/sh scripts) and, where it
// is installed, shellcheck on every script.
func TestShellScripts(t *testing.T) {
	scripts := []string{"slurm/gofio-fleet.sbatch", "kubernetes/fleet-entrypoint.sh"}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		sh := "bash"
		if strings.HasPrefix(string(b), "#!/bin/sh") {
			sh = "sh"
		}
		if out, err := exec.Command(sh, "-n", s).CombinedOutput(); err != nil {
			t.Errorf("%s -n %s: %v\n%s", sh, s, err, out)
		}
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("shellcheck is not installed (.ci/run installs it)")
		}
		t.Skip("shellcheck not installed")
	}
	out, err := exec.Command("shellcheck", scripts...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// TestStrictCatchesTypo checks the strict decoding is strict: a misspelt
// field in a Job fails.
func TestStrictCatchesTypo(t *testing.T) {
	typo := []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec:\n  completionsMode: Indexed\n  template: {spec: {containers: [{name: c, image: i}]}}\n")
	if err := yaml.UnmarshalStrict(typo, &batchv1.Job{}); err == nil || !strings.Contains(err.Error(), "completionsMode") {
		t.Errorf("typo'd field accepted: %v", err)
	}
}
