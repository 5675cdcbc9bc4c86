// expect: NetworkBlocked
const r = await fetch('https://example.com/data.json');
console.log(await r.text());
