package secrets

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"filippo.io/age"
	sopsage "github.com/getsops/sops/v3/age"
	"sigs.k8s.io/yaml"
)

// sealed is a Secret encrypted by SOPS's library for a new age identity (as `sops --encrypt
// --age R --encrypted-regex '^(data|stringData)$'` writes it), read as a build hands it over.
func sealed(t *testing.T, identity *age.X25519Identity, domain string, token []byte) map[string]interface{} {
	t.Helper()
	plain := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\n" +
		"stringData:\n  SECRET_DOMAIN: " + domain + "\ndata:\n  token: " + base64.StdEncoding.EncodeToString(token) + "\n"
	out, err := encrypt([]byte(plain), identity.Recipient().String(), "^(data|stringData)$")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), domain) {
		t.Fatalf("the value is not encrypted:\n%s", out)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(out, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func canary(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "cnry" + hex.EncodeToString(b)
}

func TestAValueIsATokenThatComparesAsTheValueAndHoldsNoneOfIt(t *testing.T) {
	identity, _ := age.GenerateX25519Identity()
	t.Setenv(sopsage.SopsAgeKeyEnv, identity.String())
	t.Setenv(sopsage.SopsAgeKeyFileEnv, "")
	keys, err := FromEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	one, other := canary(t), canary(t)
	first, secret, err := keys.Tokenized(sealed(t, identity, one, []byte(one)))
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := keys.Tokenized(sealed(t, identity, one, []byte(one))) // a new data key, the same values
	changed, _, _ := keys.Tokenized(sealed(t, identity, other, []byte(other)))
	text, _ := json.Marshal(first)
	if strings.Contains(string(text), one) || strings.Contains(string(text), "sops") {
		t.Fatalf("a decrypted value or SOPS metadata is handed back: %s", text)
	}
	if strings.Join(secret, ",") != "SECRET_DOMAIN,token" {
		t.Fatalf("secret keys: %v", secret)
	}
	domain := first["stringData"].(map[string]interface{})["SECRET_DOMAIN"].(string)
	if !strings.HasPrefix(domain, TokenPrefix) || !strings.HasSuffix(domain, "-SECRET_DOMAIN-zz") {
		t.Fatalf("not a token: %s", domain)
	}
	raw, _ := base64.StdEncoding.DecodeString(first["data"].(map[string]interface{})["token"].(string))
	if !strings.HasSuffix(string(raw), "-token-zz") {
		t.Fatalf("data's value is not a token once decoded: %q", raw)
	}
	if again["stringData"].(map[string]interface{})["SECRET_DOMAIN"] != domain {
		t.Fatal("two equal values got two tokens")
	}
	if changed["stringData"].(map[string]interface{})["SECRET_DOMAIN"] == domain {
		t.Fatal("two different values got one token")
	}
}

func TestAnotherKeyDoesNotDecryptAndSaysNoValue(t *testing.T) {
	owner, _ := age.GenerateX25519Identity()
	stranger, _ := age.GenerateX25519Identity()
	t.Setenv(sopsage.SopsAgeKeyEnv, stranger.String())
	t.Setenv(sopsage.SopsAgeKeyFileEnv, "")
	keys, err := FromEnvironment()
	if err != nil {
		t.Fatal(err)
	}
	value := canary(t)
	_, _, err = keys.Tokenized(sealed(t, owner, value, []byte(value)))
	if err == nil || strings.Contains(err.Error(), value) || !strings.Contains(err.Error(), "cannot get sops data key") {
		t.Fatalf("err = %v", err)
	}
}

func TestTheTokenKeyIsTheAgeKeys(t *testing.T) {
	one, _ := age.GenerateX25519Identity()
	two, _ := age.GenerateX25519Identity()
	t.Setenv(sopsage.SopsAgeKeyFileEnv, "")
	t.Setenv(sopsage.SopsAgeKeyEnv, one.String())
	a, _ := FromEnvironment()
	t.Setenv(sopsage.SopsAgeKeyEnv, two.String())
	b, _ := FromEnvironment()
	if a.token("X", []byte("v")) == b.token("X", []byte("v")) {
		t.Fatal("tokens made with two keys agree: one cached with a key would pass for the other's")
	}
	t.Setenv(sopsage.SopsAgeKeyEnv, "")
	if _, err := FromEnvironment(); err != ErrNoKey {
		t.Fatalf("err = %v", err)
	}
}
