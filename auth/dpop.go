package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// dpopKey makes DPoP proofs (RFC 9449 section 4) with one key pair.
type dpopKey struct {
	priv jwk.Key
	pub  jwk.Key
	alg  jwa.SignatureAlgorithm
}

// newDPoPKey wraps signer (nil: a new P-256 key).
func newDPoPKey(signer crypto.Signer) (*dpopKey, error) {
	if signer == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("auth: DPoP key: %w", err)
		}
		signer = k
	}
	priv, err := jwk.Import(signer)
	if err != nil {
		return nil, fmt.Errorf("auth: DPoP key: %w", err)
	}
	pub, err := jwk.PublicKeyOf(priv)
	if err != nil {
		return nil, fmt.Errorf("auth: DPoP key: %w", err)
	}
	alg, err := signingAlg(signer)
	if err != nil {
		return nil, err
	}
	return &dpopKey{priv: priv, pub: pub, alg: alg}, nil
}

// signingAlg picks the JWS algorithm of a key: ES256/384/512 by curve,
// RS256 for RSA.
func signingAlg(k any) (jwa.SignatureAlgorithm, error) {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jwa.ES256(), nil
		case elliptic.P384():
			return jwa.ES384(), nil
		case elliptic.P521():
			return jwa.ES512(), nil
		}
	case interface{ Size() int }: // *rsa.PrivateKey
		return jwa.RS256(), nil
	}
	return jwa.SignatureAlgorithm{}, fmt.Errorf("auth: unsupported key type %T", k)
}

// proof returns a DPoP proof for method and target (whose query and
// fragment are dropped), with the server's nonce and the access token's
// hash when given.
func (d *dpopKey) proof(method, target, nonce, accessToken string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("auth: DPoP htu: %w", err)
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	b := jwt.NewBuilder().
		JwtID(rand.Text()).
		IssuedAt(time.Now()).
		Claim("htm", method).
		Claim("htu", u.String())
	if nonce != "" {
		b = b.Claim("nonce", nonce)
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		b = b.Claim("ath", base64.RawURLEncoding.EncodeToString(sum[:]))
	}
	tok, err := b.Build()
	if err != nil {
		return "", fmt.Errorf("auth: DPoP proof: %w", err)
	}
	h := jws.NewHeaders()
	if err := h.Set(jws.TypeKey, "dpop+jwt"); err != nil {
		return "", fmt.Errorf("auth: DPoP proof: %w", err)
	}
	if err := h.Set(jws.JWKKey, d.pub); err != nil {
		return "", fmt.Errorf("auth: DPoP proof: %w", err)
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(d.alg, d.priv, jws.WithProtectedHeaders(h)))
	if err != nil {
		return "", fmt.Errorf("auth: DPoP proof: %w", err)
	}
	return string(signed), nil
}

// signAssertion signs a JWT with key (a crypto.Signer or a jwk.Key) for
// RFC 7523: client authentication (private_key_jwt) or a grant.
func signAssertion(key any, alg string, iss, sub, aud string, lifetime time.Duration) (string, error) {
	k, err := jwk.Import(key)
	if err != nil {
		if jk, ok := key.(jwk.Key); ok {
			k = jk
		} else {
			return "", fmt.Errorf("auth: assertion key: %w", err)
		}
	}
	var sa jwa.SignatureAlgorithm
	if alg != "" {
		var ok bool
		if sa, ok = jwa.LookupSignatureAlgorithm(alg); !ok {
			return "", fmt.Errorf("auth: unknown signing algorithm %q", alg)
		}
	} else if sa, err = signingAlg(key); err != nil {
		return "", err
	}
	now := time.Now()
	tok, err := jwt.NewBuilder().
		Issuer(iss).
		Subject(sub).
		Audience([]string{aud}).
		IssuedAt(now).
		Expiration(now.Add(lifetime)).
		JwtID(rand.Text()).
		Build()
	if err != nil {
		return "", fmt.Errorf("auth: assertion: %w", err)
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(sa, k))
	if err != nil {
		return "", fmt.Errorf("auth: assertion: %w", err)
	}
	return string(signed), nil
}
