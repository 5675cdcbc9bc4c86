// expect: success
console.log(JSON.stringify({ ok: false, error: { type: 'Timeout' } }));
