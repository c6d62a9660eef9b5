// Package secrets decrypts SOPS-encrypted Kubernetes Secrets as kustomize-controller's decryptor
// does, and hands back only tokens for the values: no decrypted byte ever leaves this process.
//
// Why tokens: the guard must judge a Kustomization whose build uses a secret's variables (a name
// holding `${SECRET_DOMAIN}`, a Secret applied by a build) by the values Flux will use, and must
// see when a secret's value changes between two revisions, without keeping or printing a value.
// Each encrypted value becomes `zz-cgsec<digest>-<KEY>-zz`: <digest> is an HMAC-SHA256 of the
// value under a key derived from the age identities the CI gives (SOPS_AGE_KEY and the file
// SOPS_AGE_KEY_FILE names), so two equal values get one token and two different values two, and
// without the private key nobody can tell which value a token stands for (not even by trying the
// few values a low-entropy secret may have). gen/guard/flux/placeholders.py shows a token as
// `${KEY}`.
//
// The decryption is kustomize-controller's (internal/decryptor, SopsDecryptWithFormat and
// DecryptResource at the release gen/data/SOURCES.md names), through the same library
// (github.com/getsops/sops/v3 at the version its go.mod pins): the Secret as JSON, read by SOPS's
// JSON store, its data key from the age key service, the tree decrypted with SOPS's AES cipher.
// The controller does not check the SOPS MAC (its decryptor's checkSopsMac is never set: a build
// adds a namespace or labels to most Secrets, which would fail the check), so neither does this;
// the computed MAC is a plain SHA-512 of the values and is never printed. Only age keys are
// served (the controller's key service also serves PGP, Vault and cloud KMS keys, which a CI's
// environment variables do not give).
package secrets

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	"github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keyservice"
	sopsjson "github.com/getsops/sops/v3/stores/json"
)

// envelope starts every value SOPS encrypted (the AES-GCM cipher's format).
const envelope = "ENC[AES256_GCM,"

// TokenPrefix starts every token (gen/guard/flux/placeholders.py reads it back).
const TokenPrefix = "zz-cgsec"

var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Keys are the age identities the CI gives, and the token key derived from them.
type Keys struct {
	identities age.ParsedIdentities
	tokenKey   []byte
}

// ErrNoKey says that neither SOPS_AGE_KEY nor SOPS_AGE_KEY_FILE is set.
var ErrNoKey = errors.New("no age key: set SOPS_AGE_KEY (the key itself) or SOPS_AGE_KEY_FILE (a file holding it)")

// FromEnvironment reads the age identities as Flux's CI takes them: SOPS_AGE_KEY (one or more
// identities, one a line) and the file SOPS_AGE_KEY_FILE names. Nothing else is read (not the
// user's ~/.config/sops/age/keys.txt, which sops itself would fall back to).
func FromEnvironment() (*Keys, error) {
	var texts []string
	if text := os.Getenv(age.SopsAgeKeyEnv); text != "" {
		texts = append(texts, text)
	}
	if path := os.Getenv(age.SopsAgeKeyFileEnv); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", age.SopsAgeKeyFileEnv, err)
		}
		texts = append(texts, string(data))
	}
	if len(texts) == 0 {
		return nil, ErrNoKey
	}
	keys := &Keys{}
	if err := keys.identities.Import(texts...); err != nil {
		return nil, fmt.Errorf("the age key given does not read (%s, %s)", age.SopsAgeKeyEnv, age.SopsAgeKeyFileEnv)
	}
	mac := hmac.New(sha256.New, []byte("coredns-gen secret tokens 1"))
	for _, text := range texts {
		mac.Write([]byte(text))
		mac.Write([]byte{0})
	}
	keys.tokenKey = mac.Sum(nil)
	return keys, nil
}

// token is what a decrypted value of key `name` is written as.
func (k *Keys) token(name string, value []byte) string {
	mac := hmac.New(sha256.New, k.tokenKey)
	mac.Write(value)
	digest := hex.EncodeToString(mac.Sum(nil))[:20]
	if variableName.MatchString(name) {
		return TokenPrefix + digest + "-" + name + "-zz"
	}
	return TokenPrefix + digest + "-zz"
}

// IsEncrypted is kustomize-controller's isSOPSEncryptedResource: a `sops` field with a `mac`.
func IsEncrypted(obj map[string]interface{}) bool {
	meta, ok := obj["sops"].(map[string]interface{})
	if !ok {
		return false
	}
	mac, _ := meta["mac"].(string)
	return mac != ""
}

// Tokenized decrypts obj (a Secret with SOPS metadata, as a build or a file holds it) and returns
// it as the controller applies it (no `sops` field) with each value that was encrypted replaced
// by its token, and the keys of the values that were secret. An error never holds a value.
func (k *Keys) Tokenized(obj map[string]interface{}) (map[string]interface{}, []string, error) {
	var encrypted [][]string
	for key, value := range obj {
		if key != "sops" {
			encrypted = append(encrypted, envelopes(value, []string{key})...)
		}
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	plain, err := k.decrypt(data)
	if err != nil {
		return nil, nil, err
	}
	var out map[string]interface{}
	if err := json.Unmarshal(plain, &out); err != nil {
		return nil, nil, errors.New("the decrypted Secret is not JSON")
	}
	var secret []string
	for _, path := range encrypted {
		name := path[len(path)-1]
		parent, ok := at(out, path[:len(path)-1]).(map[string]interface{})
		if !ok {
			continue // a list of values: below, each a token named after the list
		}
		value := fmt.Sprint(parent[name])
		if len(path) == 2 && path[0] == "data" && obj["kind"] == "Secret" {
			raw, err := base64.StdEncoding.DecodeString(value)
			if err == nil { // the controller reads data's values decoded
				parent[name] = base64.StdEncoding.EncodeToString([]byte(k.token(name, raw)))
				secret = append(secret, name)
				continue
			}
		}
		parent[name] = k.token(name, []byte(value))
		secret = append(secret, name)
	}
	for _, path := range encrypted { // values inside lists
		if list, ok := at(out, path[:len(path)-1]).([]interface{}); ok {
			name := path[len(path)-2]
			for i, v := range list {
				list[i] = k.token(name, []byte(fmt.Sprint(v)))
			}
			secret = append(secret, name)
		}
	}
	sort.Strings(secret)
	return out, secret, nil
}

// decrypt is SopsDecryptWithFormat(JSON, JSON) without the MAC check, as the controller runs it.
func (k *Keys) decrypt(data []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, errors.New("SOPS could not read the encrypted Secret")
		}
	}()
	store := sopsjson.NewStore(&config.JSONStoreConfig{})
	tree, err := store.LoadEncryptedFile(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load encrypted JSON data: %s", redacted(err))
	}
	if tree.Metadata.EncryptedCommentRegex != "" || tree.Metadata.UnencryptedCommentRegex != "" {
		return nil, errors.New("encrypted with a comment regex, which this guard does not decrypt")
	}
	dataKey, err := tree.Metadata.GetDataKeyWithKeyServices(
		[]keyservice.KeyServiceClient{keyservice.NewCustomLocalClient(ageServer{k.identities})}, sops.DefaultDecryptionOrder)
	if err != nil {
		return nil, fmt.Errorf("cannot get sops data key: %s", redacted(err))
	}
	if _, err := tree.Decrypt(dataKey, aes.NewCipher()); err != nil {
		// SOPS's message may quote a value that is not in its format: none is repeated here.
		return nil, errors.New("error decrypting sops tree: a value does not decrypt with the file's data key")
	}
	return store.EmitPlainFile(tree.Branches)
}

// redacted is SOPS's message for an error, first line only (its user errors list every key tried).
func redacted(err error) string {
	var user sops.UserError
	text := err.Error()
	if errors.As(err, &user) {
		text = user.UserError()
	}
	return strings.TrimSpace(text)
}

// envelopes are the paths of obj's string values in SOPS's encrypted format.
func envelopes(value interface{}, path []string) [][]string {
	switch v := value.(type) {
	case string:
		if strings.HasPrefix(v, envelope) {
			return [][]string{append([]string(nil), path...)}
		}
	case map[string]interface{}:
		var out [][]string
		for key, item := range v {
			out = append(out, envelopes(item, append(path, key))...)
		}
		return out
	case []interface{}:
		for _, item := range v {
			if s, ok := item.(string); ok && strings.HasPrefix(s, envelope) {
				return [][]string{append(append([]string(nil), path...), "[]")}
			}
		}
	}
	return nil
}

// at is the value at path in obj (nil when there is none).
func at(obj interface{}, path []string) interface{} {
	for _, key := range path {
		m, ok := obj.(map[string]interface{})
		if !ok {
			return nil
		}
		obj = m[key]
	}
	return obj
}

// ageServer is a SOPS key service that serves the age identities given, and nothing else (as
// kustomize-controller's own key service serves the identities its decryption Secret holds).
type ageServer struct {
	identities age.ParsedIdentities
}

func (s ageServer) Encrypt(context.Context, *keyservice.EncryptRequest) (*keyservice.EncryptResponse, error) {
	return nil, errors.New("the guard never encrypts")
}

func (s ageServer) Decrypt(_ context.Context, req *keyservice.DecryptRequest) (*keyservice.DecryptResponse, error) {
	key, ok := req.Key.GetKeyType().(*keyservice.Key_AgeKey)
	if !ok {
		return nil, errors.New("only age keys are given to the guard (SOPS_AGE_KEY, SOPS_AGE_KEY_FILE)")
	}
	master := age.MasterKey{Recipient: key.AgeKey.Recipient, EncryptedKey: string(req.Ciphertext)}
	s.identities.ApplyToMasterKey(&master)
	plain, err := master.Decrypt()
	if err != nil {
		return nil, err
	}
	return &keyservice.DecryptResponse{Plaintext: plain}, nil
}
