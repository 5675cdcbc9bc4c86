// expect: ThrownValue
throw 'bad state';
