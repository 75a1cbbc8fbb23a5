// The official TypeScript SDK's MCP client against tempmail, over
// streamable HTTP (/mcp) and over stdio (tempmail mcp, with the service's
// URL in TEMPMAIL_SERVER). It reports what it saw as one JSON object on
// stdout; TestMCPFromNodeClients (mcp_node_test.go) checks the report.
//
// usage: node client.mjs BASE_URL TEMPMAIL_BINARY HTTP_TOKEN STDIO_TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const [base, binary, httpToken, stdioToken] = process.argv.slice(2);

// typeProblems lists the places in a schema whose type is not one plain
// type: an array of types, or null.
function typeProblems(schema, path, out) {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => typeProblems(s, `${path}/${i}`, out));
  } else if (schema && typeof schema === "object") {
    if ("type" in schema && (typeof schema.type !== "string" || schema.type === "null")) {
      out.push(`${path}: ${JSON.stringify(schema.type)}`);
    }
    for (const [k, v] of Object.entries(schema)) {
      typeProblems(v, `${path}/${k}`, out);
    }
  }
  return out;
}

const text = (result) => result.content.map((c) => c.text).join("");

async function run(transport, token) {
  const client = new Client({ name: "tempmail-test", version: "0" });
  await client.connect(transport);
  const report = { capabilities: client.getServerCapabilities(), schemaProblems: [] };
  const { tools } = await client.listTools();
  report.tools = tools.map((t) => t.name).sort();
  for (const t of tools) {
    typeProblems(t.inputSchema, `${t.name}.inputSchema`, report.schemaProblems);
    typeProblems(t.outputSchema, `${t.name}.outputSchema`, report.schemaProblems);
  }
  // The client checks each structured result against the tool's output
  // schema, and throws when it does not match.
  const created = await client.callTool({ name: "create_inbox", arguments: {} });
  report.created = created.isError ? text(created) : created.structuredContent.address;
  const link = await client.callTool({ name: "get_link", arguments: { token, timeout_seconds: 10 } });
  report.link = link.isError ? "" : link.structuredContent.link;
  report.linkText = text(link);
  const code = await client.callTool({ name: "get_code", arguments: { token, timeout_seconds: 10 } });
  report.code = code.isError ? text(code) : code.structuredContent.code;
  const bad = await client.callTool({ name: "get_code", arguments: { token, timeout_seconds: 120 } });
  report.badTimeout = text(bad);
  report.deletes = [];
  for (let i = 0; i < 2; i++) {
    const d = await client.callTool({ name: "delete_inbox", arguments: { token } });
    report.deletes.push(d.isError ? text(d) : d.structuredContent);
  }
  await client.close();
  return report;
}

const report = {
  http: await run(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)), httpToken),
  stdio: await run(
    new StdioClientTransport({ command: binary, args: ["mcp"], env: { ...getDefaultEnvironment(), TEMPMAIL_SERVER: base } }),
    stdioToken,
  ),
};
console.log(JSON.stringify(report));
