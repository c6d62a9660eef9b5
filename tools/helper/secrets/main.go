package secrets

// `coredns-gen-helper sops decrypt` reads {id, object} per line (a Secret with SOPS metadata, as
// a build or a file of the repository holds it) and answers {id, object, secret, error}: the
// object with each encrypted value as its token (secrets.go), and the keys that were secret.
// `sops keygen` prints a new age identity and its recipient; `sops encrypt -age RECIPIENT`
// encrypts the YAML document on stdin for it as `sops --encrypt --age RECIPIENT
// --encrypted-regex '^(data|stringData)$'` does (Flux's documented setting): the tests make real
// SOPS files with them, and a user can too.

import (
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"filippo.io/age"
	"github.com/coredns-gen/coredns-gen/tools/helper/lines"
	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/config"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
)

type request struct {
	ID     string                 `json:"id"`
	Object map[string]interface{} `json:"object"`
}

type answer struct {
	ID     string                 `json:"id"`
	Object map[string]interface{} `json:"object,omitempty"`
	Secret []string               `json:"secret"`
	Error  string                 `json:"error,omitempty"`
}

// Main serves `coredns-gen-helper sops decrypt|keygen|encrypt`.
func Main(args []string) {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: coredns-gen-helper sops decrypt|keygen|encrypt -age RECIPIENT")
		os.Exit(2)
	}
	switch args[0] {
	case "decrypt":
		keys, err := FromEnvironment()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		lines.Serve(os.Stdin, os.Stdout, func(req request) answer {
			out, secret, err := keys.Tokenized(req.Object)
			if err != nil {
				return answer{ID: req.ID, Secret: []string{}, Error: err.Error()}
			}
			return answer{ID: req.ID, Object: out, Secret: append([]string{}, secret...)}
		})
	case "keygen":
		identity, err := age.GenerateX25519Identity()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Printf("%s\n%s\n", identity, identity.Recipient())
	case "encrypt":
		flags := flag.NewFlagSet("sops encrypt", flag.ExitOnError)
		recipient := flags.String("age", "", "the age recipient to encrypt for")
		regex := flags.String("encrypted-regex", "^(data|stringData)$", "the keys whose values are encrypted")
		_ = flags.Parse(args[1:])
		plain, err := io.ReadAll(os.Stdin)
		if err == nil {
			var out []byte
			out, err = encrypt(plain, *recipient, *regex)
			if err == nil {
				_, err = os.Stdout.Write(out)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown sops command %q\n", args[0])
		os.Exit(2)
	}
}

// sopsVersion is the SOPS release tools/helper/go.mod pins, written in a file's `sops.version` as
// sops itself writes its own (its version package would link its command-line library).
const sopsVersion = "3.13.3"

// encrypt is `sops --encrypt` of one YAML document for one age recipient, by SOPS's library.
func encrypt(plain []byte, recipient, regex string) ([]byte, error) {
	if recipient == "" {
		return nil, errors.New("-age RECIPIENT is required")
	}
	store := sopsyaml.NewStore(&config.YAMLStoreConfig{})
	branches, err := store.LoadPlainFile(plain)
	if err != nil {
		return nil, err
	}
	key, err := sopsage.MasterKeyFromRecipient(recipient)
	if err != nil {
		return nil, err
	}
	tree := sops.Tree{Branches: branches, Metadata: sops.Metadata{
		KeyGroups: []sops.KeyGroup{{key}}, EncryptedRegex: regex, Version: sopsVersion}}
	dataKey := make([]byte, 32)
	if _, err := rand.Read(dataKey); err != nil {
		return nil, err
	}
	if err := key.Encrypt(dataKey); err != nil {
		return nil, err
	}
	cipher := aes.NewCipher()
	mac, err := tree.Encrypt(dataKey, cipher)
	if err != nil {
		return nil, err
	}
	tree.Metadata.LastModified = time.Now().UTC()
	tree.Metadata.MessageAuthenticationCode, err = cipher.Encrypt(mac, dataKey, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil {
		return nil, err
	}
	return store.EmitEncryptedFile(tree)
}
