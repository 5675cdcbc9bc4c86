// expect: NetworkBlocked
const net = require('net');
net.connect(5432, '127.0.0.1');
