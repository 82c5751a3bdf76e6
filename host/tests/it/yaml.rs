//! YAML read as kubectl reads it, through the built `podmut` binary (so through the component):
//! YAML 1.1 plain scalars (`0644` is octal, `yes` is `true`) and errors that name the file, the
//! document, the line and the column.

use crate::support::{expect_bad_input, json_of, run, stderr, tempdir, write};

/// A Pod as people write it for kubectl: an octal file mode and `privileged: yes`.
const KUBECTL_STYLE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  volumes:
  - name: config
    configMap:
      name: web-config
      defaultMode: 0644
  containers:
  - name: app
    image: nginx
    securityContext:
      privileged: yes
    volumeMounts:
    - {name: config, mountPath: /etc/web}
";

#[test]
fn octal_modes_and_yes_are_read_as_kubectl_sends_them() {
    let dir = tempdir();
    let pod = write(dir.path(), "pod.yaml", KUBECTL_STYLE);
    let pod = pod.to_str().unwrap();
    let out = run(&["check", "--new", pod, "-o", "json"]);
    let verdict = json_of(&out);
    assert_eq!(verdict["allowed"], true, "{verdict}\n{}", stderr(&out));
    // The object podmut judged: kubectl sends 420 and true.
    let out = run(&["admission-review", "--new", pod, "-o", "json"]);
    let object = &json_of(&out)["request"]["object"];
    assert_eq!(
        object["spec"]["volumes"][0]["configMap"]["defaultMode"], 420,
        "{object}"
    );
    assert_eq!(
        object["spec"]["containers"][0]["securityContext"]["privileged"],
        true
    );
}

#[test]
fn an_octal_mode_out_of_range_is_judged_as_the_server_judges_it() {
    let dir = tempdir();
    // 01777 is 1023, over 0777: the API server answers `Invalid value: 1023`.
    let pod = write(
        dir.path(),
        "pod.yaml",
        &KUBECTL_STYLE.replace("defaultMode: 0644", "defaultMode: 01777"),
    );
    let out = run(&["check", "--new", pod.to_str().unwrap(), "-o", "json"]);
    let verdict = json_of(&out);
    assert_eq!(verdict["allowed"], false, "{verdict}");
    let message = verdict["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("spec.volumes[0].configMap.defaultMode: Invalid value: 1023"),
        "{verdict}"
    );
}

#[test]
fn a_yaml_error_names_file_document_line_and_column() {
    let dir = tempdir();
    let text = format!("{KUBECTL_STYLE}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n");
    let pods = write(dir.path(), "pods.yaml", &text);
    let out = run(&["check", "--new", pods.to_str().unwrap()]);
    expect_bad_input(&out, "pods.yaml: invalid YAML in document 2: line 23 column");
    // A value kubectl cannot send names its field.
    let bad = write(
        dir.path(),
        "bad.yaml",
        &KUBECTL_STYLE.replace("privileged: yes", "privileged: !!int yes"),
    );
    let out = run(&["check", "--new", bad.to_str().unwrap()]);
    expect_bad_input(
        &out,
        "bad.yaml: invalid YAML: line 15 column 19: spec.containers[0].securityContext.privileged: cannot decode !!bool `yes` as a !!int",
    );
}
