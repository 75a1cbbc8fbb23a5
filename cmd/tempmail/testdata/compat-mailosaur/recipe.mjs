// The tests of README.md's Mailosaur recipes (npm test there), as
// docs/API.md's example writes them: configured by the recipe's variables
// alone. Where the application under test would send its mail, it prints
// "send <address>" for the Go test to send it.
import MailosaurClient from 'mailosaur';

const mailosaur = new MailosaurClient(process.env.MAILOSAUR_API_KEY, process.env.MAILOSAUR_BASE_URL);
const server = await mailosaur.servers.create({ name: 'Checkout tests' });
const address = mailosaur.servers.generateEmailAddress(server.id);
console.log('send ' + address);
const message = await mailosaur.messages.get(server.id, { sentTo: address });
console.log(message.html.codes[0].value, message.html.links[0].href);
await mailosaur.messages.deleteAll(server.id);
await mailosaur.servers.del(server.id);
