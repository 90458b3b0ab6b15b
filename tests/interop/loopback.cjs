// Preload (`node -r`) that pins every server socket to 127.0.0.1: the test servers must never
// listen on other interfaces, and some (server-everything) listen on all of them by default.
'use strict';
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function patchedListen(...args) {
  if (typeof args[0] === 'object' && args[0] !== null && !Array.isArray(args[0])) {
    if (args[0].path === undefined) args[0] = { ...args[0], host: '127.0.0.1' };
  } else if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    // listen(port[, host][, backlog][, cb]): replace or insert the host.
    if (typeof args[1] === 'string') args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  } else if (args.length === 0 || typeof args[0] === 'function') {
    args.unshift(0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
