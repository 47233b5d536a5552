// A real OpenID provider for the single sign-on tests: npm oidc-provider (a certified
// implementation) on loopback, with one confidential client (PKCE required) and its
// development login pages (any login name is an account; the accounts below carry claims).
//   node provider.mjs <oidc-provider folder> <port> <client id> <client secret> <redirect uri>
import { pathToFileURL } from "node:url";
import path from "node:path";

const [folder, port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const { default: Provider } = await import(
  pathToFileURL(path.join(folder, "node_modules", "oidc-provider", "lib", "index.js")).href
);

const ACCOUNTS = {
  ada: { email: "ada@example.org", email_verified: true, name: "Ada Lovelace" },
  eve: { email: "eve@elsewhere.example", email_verified: true, name: "Eve" },
  una: { email: "una@example.org", email_verified: false, name: "Una Verified" },
};

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  pkce: { required: () => true },
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  async findAccount(ctx, id) {
    const claims = ACCOUNTS[id] || { email: `${id}@example.org`, email_verified: true };
    return { accountId: id, async claims() { return { sub: id, ...claims }; } };
  },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ["band-test-only"] },
});
provider.listen(Number(port), "127.0.0.1", () => {
  console.log(`ready ${issuer}`);
});
